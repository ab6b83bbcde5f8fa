#!/usr/bin/env python3
"""Makes the upgrade fixture of Tests/Fixtures/upgrade-2026-11-27 with a release's `attendance` binary.

Python's standard library only. For each backend it starts `attendance serve` on 127.0.0.1 on a new
database, drives October 2026 through the HTTP API, the console and the CLI as an employer would
(the scenario below), exports the month's timesheet as CSV over HTTP, stops the server, seals and
verifies the ledger with `attendance ledger verify --seal`, checks `ledger rebuild --check`, and
keeps the database:

    attendance.sqlite             the SQLite file (WAL checkpointed, vacuumed: no -wal or -shm)
    postgresql.sql                a plain pg_dump of the PostgreSQL database (a private server from
                                  scripts/pg-throwaway, stopped at the end)
    goldens/<backend>/timesheet-2026-10.csv   the server's CSV export of 2026-10-01..31
    goldens/<backend>/fixture.json            when the export was made, and what was written

The other goldens (sessions, ledger, seals, timesheet rows as JSON, the directory) are written by
UpgradeFixtureTests in its record mode, run on the same release's sources (README.md says how).

    make-fixture.py --attendance /work/baseline-bin/attendance --commit 7e79804 [--backend sqlite|postgresql|both]
"""
import argparse
import datetime
import email.utils
import hashlib
import html.parser
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zoneinfo

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
UUID = "FDA50693-0000-0000-0000-290995101092"
ADMIN_TOKEN = "upgrade-fixture-admin-token-2026-11-27"
OWNER_EMAIL = "owner@beacon.example"
PASSWORDS = {"hr": "hr-password-0123456789", "manager": "manager-password-0123456789",
             "auditor": "auditor-password-0123456789", "contractor": "contractor-password-0123456789"}
MONTH = ("2026-10-01", "2026-10-31")
# October's events are up to 58 days old on 2026-11-27: the default limit is 30 days.
MAX_PAST_SECONDS = 90 * 86_400


class Failure(Exception):
    pass


# --- HTTP ------------------------------------------------------------------------------------------

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(_NoRedirect)


def request(url, method="GET", token=None, key=None, body=None, headers=None, form=None, cookie=None):
    """One request, redirects not followed: (status, headers, body bytes)."""
    data = None
    req_headers = dict(headers or {})
    if body is not None:
        data = json.dumps(body, ensure_ascii=False).encode()
        req_headers["Content-Type"] = "application/json"
    elif form is not None:
        data = urllib.parse.urlencode(form, doseq=True).encode()
        req_headers["Content-Type"] = "application/x-www-form-urlencoded"
    req = urllib.request.Request(url, data=data, method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    if key:
        req.add_header("Idempotency-Key", key)
    if cookie:
        req.add_header("Cookie", cookie)
    for name, value in req_headers.items():
        req.add_header(name, value)
    try:
        with OPENER.open(req, timeout=60) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


class API:
    def __init__(self, base):
        self.base = base
        self.calls = 0

    def call(self, method, path, token=ADMIN_TOKEN, key=None, body=None, expect=(200, 201), headers=None):
        status, _, answer = request(self.base + path, method, token, key, body, headers)
        self.calls += 1
        if status not in expect:
            raise Failure(f"{method} {path} answered {status} (expected {expect}): {answer[:600]!r}")
        if not answer:
            return None
        try:
            return json.loads(answer)
        except ValueError:
            return answer

    def admin(self, method, path, body=None, expect=(200, 201), token=ADMIN_TOKEN):
        return self.call(method, path, token=token, body=body, expect=expect)


# --- Times ---------------------------------------------------------------------------------------

def at(zone, local):
    """A site's wall-clock time ('2026-10-05 08:58:17') as an RFC 3339 UTC timestamp."""
    moment = datetime.datetime.strptime(local, "%Y-%m-%d %H:%M:%S").replace(tzinfo=zoneinfo.ZoneInfo(zone))
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def http_date(skew_seconds=0):
    """The phone's clock in a Date header: the real time minus its lag (the session's clock skew)."""
    return email.utils.formatdate(time.time() - skew_seconds, usegmt=True)


# --- The server ------------------------------------------------------------------------------------

class Server:
    """`attendance serve` on a free loopback port, its stdout read by a thread."""

    def __init__(self, binary, database, log_path):
        self.binary, self.database, self.log_path = binary, database, log_path
        self.process, self.url, self.owner_password, self.output = None, None, None, []

    def start(self):
        env = dict(os.environ, ATTENDANCE_ADMIN_TOKEN=ADMIN_TOKEN)
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [self.binary, "serve", "--host", "127.0.0.1", "--port", "0", "--database", self.database,
                 "--owner-email", OWNER_EMAIL, "--max-past-seconds", str(MAX_PAST_SECONDS)],
                stdout=subprocess.PIPE, stderr=log, env=env, text=True)
        ready = threading.Event()

        def read():
            for line in self.process.stdout:
                line = line.rstrip("\n")
                self.output.append(line)
                found = re.search(r"Console sign-in \(shown once\): (\S+) with password (\S+)", line)
                if found:
                    self.owner_password = found.group(2)
                found = re.match(r"Listening on (http://127\.0\.0\.1:\d+)", line)
                if found:
                    self.url = found.group(1)
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True).start()
        if not ready.wait(180) or self.url is None:
            raise Failure(f"attendance serve did not start: {self.output}")
        time.sleep(0.5)  # the password line comes before "Listening"; let the reader catch up

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        status = self.process.wait(timeout=120)
        if status != 0:
            raise Failure(f"attendance serve exited {status} after SIGTERM")


def run_cli(binary, *arguments, stdin=None):
    result = subprocess.run([binary, *arguments], input=stdin, capture_output=True, text=True, timeout=600)
    if result.returncode != 0:
        raise Failure(f"attendance {' '.join(arguments)} exited {result.returncode}: {result.stdout} {result.stderr}")
    return result.stdout


# --- The console (sign-in, forms with their CSRF token) --------------------------------------------

class FormReader(html.parser.HTMLParser):
    """Every form of a page: id or action → (action, {name: value}) of its hidden inputs."""

    def __init__(self):
        super().__init__()
        self.forms, self.current, self.codes, self.in_code = {}, None, {}, None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self.current = (attrs.get("id") or attrs.get("action"), attrs.get("action"), {})
            self.forms[self.current[0]] = self.current
        elif tag == "input" and self.current and attrs.get("name") and attrs.get("type") == "hidden":
            self.current[2][attrs["name"]] = attrs.get("value") or ""
        elif tag == "code" and attrs.get("id"):
            self.in_code = attrs["id"]

    def handle_data(self, data):
        if self.in_code:
            self.codes[self.in_code] = self.codes.get(self.in_code, "") + data

    def handle_endtag(self, tag):
        if tag == "form":
            self.current = None
        elif tag == "code":
            self.in_code = None


def cookies_of(headers):
    return [value.split(";", 1)[0].strip() for value in headers.get_all("Set-Cookie") or []]


class Console:
    """A person signed in to the console (urllib, the forms' own fields)."""

    def __init__(self, base, email_address, password):
        self.base = base
        status, headers, body = request(base + "/console/sign-in")
        if status != 200:
            raise Failure(f"GET /console/sign-in answered {status}")
        page = FormReader()
        page.feed(body.decode())
        _, action, fields = page.forms["sign-in"]
        fields = dict(fields, email=email_address, password=password)
        status, headers, body = request(urllib.parse.urljoin(base + "/console/sign-in", action or "sign-in"), "POST",
                                        form=fields, cookie="; ".join(cookies_of(headers)))
        session = [c for c in cookies_of(headers)
                   if c.startswith("attendance_session=") and c != "attendance_session="]
        if status != 303 or not session:
            raise Failure(f"sign-in of {email_address} answered {status}: {body[:300]!r}")
        self.cookie = session[0]

    def page(self, path):
        status, _, body = request(self.base + path, cookie=self.cookie)
        if status != 200:
            raise Failure(f"GET {path} answered {status}")
        reader = FormReader()
        reader.feed(body.decode())
        return reader

    def post(self, path, form_key, fields, expect=(200, 303)):
        """Submits the form `form_key` of page `path` with `fields` added to its hidden inputs."""
        _, action, hidden = self.page(path).forms[form_key]
        status, _, body = request(self.base + action, "POST", form=dict(hidden, **fields), cookie=self.cookie)
        if status not in expect:
            raise Failure(f"POST {action} answered {status}: {body[:600]!r}")
        reader = FormReader()
        reader.feed(body.decode(errors="replace"))
        return reader

    def sign_out(self):
        _, action, hidden = self.page("/console/presence").forms["sign-out"]
        status, _, _ = request(self.base + action, "POST", form=hidden, cookie=self.cookie)
        if status != 303:
            raise Failure(f"sign-out answered {status}")


# --- The month ------------------------------------------------------------------------------------

class Phone:
    """An enrolled phone: the device API with its token, keys derived from the event."""

    def __init__(self, api, user, name, app_version="2.4.1"):
        self.api, self.user, self.app_version = api, user, app_version
        code = api.admin("POST", "/v1/admin/enrollment-codes", {"userId": user, "expiresInSeconds": 3600})["code"]
        enrolled = api.call("POST", "/v1/devices/enroll", token=None, expect=(201,),
                            body={"code": code.lower(), "platform": "ios", "deviceName": name,
                                  "appVersion": app_version})
        self.device_id, self.token = enrolled["deviceId"], enrolled["deviceToken"]

    def check_in_body(self, site, key, ts, source="automatic", reason=None, evidence=None, by_site_id=False):
        body = {"userId": self.user, "beacon": {"uuid": UUID, "major": site["major"]}, "ts": ts, "sessionKey": key,
                "source": source, "deviceMeta": {"deviceId": self.device_id, "platform": "ios",
                                                 "appVersion": self.app_version}}
        if by_site_id:
            body["siteId"] = site["siteId"]
        if reason:
            body["reason"] = reason
        if evidence:
            body["evidence"] = evidence
        return body

    def check_in(self, site, key, ts, expect=(200, 201), skew=2, **options):
        return self.api.call("POST", "/v1/attendance/check-in", self.token, f"{key}:in",
                             self.check_in_body(site, key, ts, **options), expect,
                             headers={"Date": http_date(skew)})

    def check_out(self, key, ts, reason="regionExit", source="automatic", expect=(200,), idem=None):
        return self.api.call("POST", "/v1/attendance/check-out", self.token, idem or f"{key}:out",
                             {"sessionKey": key, "ts": ts, "reason": reason, "source": source}, expect)

    def heartbeat(self, key, ts, expect=(200,)):
        return self.api.call("POST", "/v1/attendance/heartbeat", self.token, f"{key}:hb:{ts}",
                             {"sessionKey": key, "ts": ts}, expect)

    def batch(self, key, events):
        return self.api.call("POST", "/v1/attendance/events", self.token, key, {"events": events}, (200,),
                             headers={"Date": http_date(1)})

    def day(self, site, zone, key, date, start, end, beats=(), evidence=None, **options):
        self.check_in(site, key, at(zone, f"{date} {start}"), evidence=evidence or EVIDENCE, **options)
        for beat in beats:
            self.heartbeat(key, at(zone, f"{date} {beat}"))
        if end:
            self.check_out(key, at(zone, f"{date} {end}"))


EVIDENCE = {"sampleCount": 14, "medianRSSI": -67.5, "stdevDB": 3.25, "walking": False, "rule": "strongMedian"}
WALKING = {"sampleCount": 6, "medianRSSI": -74.0, "stdevDB": 5.5, "walking": True, "rule": "walking"}
DWELL = {"sampleCount": 31, "medianRSSI": -81.25, "stdevDB": 2.0, "walking": False, "rule": "dwell"}
BERLIN, NEW_YORK, PUNE = "Europe/Berlin", "America/New_York", "Asia/Kolkata"


class Month:
    """October 2026 at three sites, as the release's server records it."""

    def __init__(self, server, binary):
        self.server, self.binary, self.api = server, binary, API(server.url)
        self.notes = []

    def run(self):
        api = self.api
        self.directory()
        self.settings()
        self.accounts()
        self.ingest()
        self.people_changes()
        self.pay_periods()
        self.requests_and_corrections()
        self.after_the_lock()
        self.endings()
        return api.calls

    # Sites, beacons, employees, phones.
    def directory(self):
        api = self.api
        self.berlin = api.admin("POST", "/v1/admin/sites", {"name": "Werk Berlin", "timeZone": BERLIN,
                                                            "beaconUUID": UUID, "major": 101})
        self.newyork = api.admin("POST", "/v1/admin/sites", {"name": "New York Office", "timeZone": NEW_YORK,
                                                             "beaconUUID": UUID, "major": 202,
                                                             "geofence": {"latitude": 40.7484, "longitude": -73.9857,
                                                                          "radiusMeters": 150}})
        self.pune = api.admin("POST", "/v1/admin/sites", {"name": "Pune Annex", "timeZone": PUNE,
                                                          "beaconUUID": UUID, "major": 303})
        # A geofence added to Berlin afterwards (site.updated).
        api.admin("PUT", f"/v1/admin/sites/{self.berlin['siteId']}",
                  {"name": "Werk Berlin (Halle 3)", "timeZone": BERLIN, "beaconUUID": UUID, "major": 101,
                   "geofence": {"latitude": 52.52, "longitude": 13.405, "radiusMeters": 200}})
        self.berlin["name"] = "Werk Berlin (Halle 3)"
        for site, minor, label, power in ((self.berlin, 1, "Gate", -59), (self.berlin, 2, "Halle 3 Nord", -61.5),
                                          (self.berlin, 3, "Temporary", None), (self.newyork, 1, "Lobby", -58),
                                          (self.pune, 1, "Entrance", None)):
            body = {"minor": minor, "label": label}
            if power is not None:
                body["txPowerDBm"] = power
            beacon = api.admin("POST", f"/v1/admin/sites/{site['siteId']}/beacons", body)
            if label == "Temporary":
                api.call("DELETE", f"/v1/admin/beacons/{beacon['beaconId']}", expect=(200, 204))
        self.people = {}
        for label, name, external, mail in (
                ("ada", "Ada Lovelace", "HR-1001", "ada@beacon.example"),
                ("bo", "Bo Diddley", "HR-1002", None),
                ("chen", "陈伟 Chen Wei", "HR-1003", "chen@beacon.example"),
                ("dana", "Dana Scully", None, None),
                ("emile", "Émile Zola", "HR-1005", "emile@beacon.example"),
                ("farah", "Farah Khan", "HR-1006", None),
                ("gus", "Gus Grissom", "HR-1007", "gus@beacon.example")):
            body = {"name": name}
            if external:
                body["externalId"] = external
            if mail:
                body["email"] = mail
            self.people[label] = api.admin("POST", "/v1/admin/employees", body)["userId"]
        # Dana's record completed later (employee.updated).
        api.admin("PUT", f"/v1/admin/employees/{self.people['dana']}",
                  {"name": "Dana Scully", "externalId": "HR-1004", "email": "dana@beacon.example"})
        self.phones = {label: Phone(api, user, f"{label}'s iPhone") for label, user in self.people.items()}
        # Ada's new phone from mid-month; the old one is revoked at the end.
        self.phones["ada2"] = Phone(api, self.people["ada"], "Ada's new iPhone", app_version="2.5.0")
        # A code issued and never used.
        api.admin("POST", "/v1/admin/enrollment-codes", {"userId": self.people["farah"]})
        # What two phones let the app do (devices' reported state).
        self.api.call("PUT", "/v1/me/device-state", self.phones["ada2"].token, expect=(200, 204),
                      body={"location": "always", "preciseLocation": True, "bluetooth": "poweredOn",
                            "backgroundRefresh": "available", "appVersion": "2.5.0",
                            "observedAt": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")})
        self.api.call("PUT", "/v1/me/device-state", self.phones["chen"].token, expect=(200, 204),
                      body={"location": "whenInUse", "preciseLocation": False, "bluetooth": "poweredOff",
                            "backgroundRefresh": "denied",
                            "observedAt": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")})

    # Schedules, assignments, each site's rules, holidays, leave, the pay cycle.
    def settings(self):
        api = self.api
        weekdays = ("monday", "tuesday", "wednesday", "thursday", "friday")
        api.admin("PUT", "/v1/admin/schedules/office", {"name": "Office 9–17:30", "shifts": [
            {"weekday": day, "start": "09:00", "end": "17:30", "expectedMinutes": 480} for day in weekdays]})
        api.admin("PUT", "/v1/admin/schedules/night", {"name": "Night shift", "shifts": [
            {"weekday": day, "start": "22:00", "end": "06:00", "expectedMinutes": 450}
            for day in ("friday", "saturday")]})
        api.admin("PUT", "/v1/admin/schedules/ny-day", {"name": "NY day", "shifts": [
            {"weekday": day, "start": "08:30", "end": "17:00", "expectedMinutes": 450} for day in weekdays]})
        api.admin("PUT", "/v1/admin/schedules/unused", {"name": "Removed again", "shifts": []})
        api.call("DELETE", "/v1/admin/schedules/unused", expect=(200, 204))
        for user, site, schedule, start, through in (
                ("ada", self.berlin, "office", "2026-10-01", None),
                ("bo", self.berlin, "night", "2026-10-01", None),
                ("emile", self.berlin, "office", "2026-10-01", "2026-10-31"),
                ("chen", self.newyork, "ny-day", "2026-10-01", None)):
            body = {"userId": self.people[user], "siteId": site["siteId"], "scheduleId": schedule, "from": start}
            if through:
                body["through"] = through
            api.admin("POST", "/v1/admin/schedule-assignments", body)
        api.admin("PUT", f"/v1/admin/sites/{self.berlin['siteId']}/timesheet-rules", {
            "dayBoundary": "calendar", "lateGraceMinutes": 5, "earlyGraceMinutes": 5, "halfDayBelowMinutes": 240,
            "absentBelowMinutes": 60, "breakRules": [{"workedOverMinutes": 360, "breakMinutes": 30},
                                                     {"workedOverMinutes": 540, "breakMinutes": 45}],
            "breakMinimumMinutes": 15, "overtimeCountsEarlyArrival": False, "defaultScheduleId": "office"})
        api.admin("PUT", f"/v1/admin/sites/{self.newyork['siteId']}/timesheet-rules", {
            "dayBoundary": "shiftStart", "lateGraceMinutes": 10, "earlyGraceMinutes": 0,
            "breakRules": [{"workedOverMinutes": 360, "breakMinutes": 30}], "overtimeCountsEarlyArrival": True,
            "defaultScheduleId": "ny-day"})
        api.admin("PUT", f"/v1/admin/sites/{self.berlin['siteId']}/holidays/2026-10-03",
                  {"name": "Tag der Deutschen Einheit"})
        api.admin("PUT", f"/v1/admin/sites/{self.newyork['siteId']}/holidays/2026-10-12", {"name": "Columbus Day"})
        api.admin("PUT", f"/v1/admin/sites/{self.newyork['siteId']}/holidays/2026-10-13", {"name": "By mistake"})
        api.call("DELETE", f"/v1/admin/sites/{self.newyork['siteId']}/holidays/2026-10-13", expect=(200, 204))
        for user, date, body in (
                ("ada", "2026-10-19", {"type": "vacation", "note": "Familienbesuch in Köln",
                                       "siteId": self.berlin["siteId"]}),
                ("chen", "2026-10-07", {"type": "sick", "siteId": self.newyork["siteId"]}),
                ("dana", "2026-10-22", {"type": "unpaid", "note": "moving day", "siteId": self.newyork["siteId"]})):
            api.admin("PUT", f"/v1/admin/employees/{self.people[user]}/leave/{date}", body)
        api.admin("PUT", "/v1/admin/pay-cycles/2026-10-01", {"cycle": "semimonthly"})

    # Console accounts with roles, sign-ins, API tokens.
    def accounts(self):
        database = self.server.database
        self.hr_id = self.add_account("hr@beacon.example", "hr", PASSWORDS["hr"])
        self.auditor_id = self.add_account("auditor@beacon.example", "auditor", PASSWORDS["auditor"])
        owner = Console(self.api.base, OWNER_EMAIL, self.server.owner_password)
        owner.post("/console/accounts", "add-account", {"email": "manager@beacon.example", "role": "manager",
                                                        "sites": [self.berlin["siteId"]],
                                                        "password": PASSWORDS["manager"]})
        owner.post("/console/accounts", "add-account", {"email": "contractor@beacon.example", "role": "auditor",
                                                        "password": PASSWORDS["contractor"]})
        listing = run_cli(self.binary, "accounts", "list", "--database", database)
        contractor = re.search(r"^(\S+)\tcontractor@beacon\.example", listing, re.M).group(1)
        # The contractor leaves: the account is deactivated (account.updated).
        owner.post("/console/accounts", f"/console/accounts/{contractor}", {"role": "auditor", "active": "no"})
        # An auditor token the owner issues, then revokes.
        issued = owner.post("/console/accounts", "new-token", {"name": "audit export", "role": "auditor"})
        audit_token = issued.codes["new-token-value"].strip()
        self.api.call("GET", "/v1/admin/audit?limit=5", token=audit_token)
        token_id = next(key for key in owner.page("/console/accounts").forms
                        if key and key.startswith("/console/tokens/") and key.endswith("/revoke"))
        owner.post("/console/accounts", token_id, {})
        time.sleep(1)  # every process's token cache follows a revocation within half a second
        self.api.call("GET", "/v1/admin/audit?limit=5", token=audit_token, expect=(401,))
        owner.sign_out()
        # HR's payroll token, used for corrections and pay periods below (actor account:<hr>).
        hr = Console(self.api.base, "hr@beacon.example", PASSWORDS["hr"])
        issued = hr.post("/console/accounts", "new-token", {"name": "payroll sync", "role": "hr"})
        self.hr_token = issued.codes["new-token-value"].strip()
        # A failed sign-in (account.signInFailed).
        status, headers, body = request(self.api.base + "/console/sign-in")
        page = FormReader()
        page.feed(body.decode())
        _, action, fields = page.forms["sign-in"]
        request(urllib.parse.urljoin(self.api.base + "/console/sign-in", action or "sign-in"), "POST",
                form=dict(fields, email="auditor@beacon.example", password="not-the-password-000"),
                cookie="; ".join(cookies_of(headers)))
        self.manager = Console(self.api.base, "manager@beacon.example", PASSWORDS["manager"])

    def add_account(self, email_address, role, password, sites=()):
        arguments = ["accounts", "add", "--database", self.server.database, "--email", email_address, "--role", role,
                     "--password-stdin"]
        for site in sites:
            arguments += ["--site", site]
        output = run_cli(self.binary, *arguments, stdin=password + "\n")
        return re.search(r"Account (\S+) \(", output).group(1)

    # The phones' events of October.
    def ingest(self):
        api, p, berlin, ny, pune = self.api, self.phones, self.berlin, self.newyork, self.pune
        ada, bo, chen, dana, emile = p["ada"], p["bo"], p["chen"], p["dana"], p["emile"]
        farah, gus, ada2 = p["farah"], p["gus"], p["ada2"]

        # Ada, Berlin office. 1 Oct: late, heartbeats; the check-in resent with its key (the stored
        # answer, 201 again) and with another key (the session found: 200).
        ada.day(berlin, BERLIN, "ada-1001", "2026-10-01", "09:12:30", "17:41:05", beats=("11:00:00", "15:30:00"))
        body = ada.check_in_body(berlin, "ada-1001", at(BERLIN, "2026-10-01 09:12:30"), evidence=EVIDENCE)
        for key, expected in (("ada-1001:in", 201), ("ada-1001:in-again", 200)):
            status = request(api.base + "/v1/attendance/check-in", "POST", ada.token, key, body)[0]
            if status != expected:
                raise Failure(f"the check-in resent with key {key} answered {status}, not {expected}")
        # 2 Oct: the check-out arrives before its check-in (202, pending), then the check-in.
        ada.check_out("ada-1002", at(BERLIN, "2026-10-02 17:02:00"), expect=(202,))
        ada.check_in(berlin, "ada-1002", at(BERLIN, "2026-10-02 08:55:00"), evidence=WALKING, by_site_id=True)
        # 5 and 6 Oct: the phone was offline; one batch with both days and an item for an unknown site.
        items = []
        for date, key in (("2026-10-05", "ada-1005"), ("2026-10-06", "ada-1006")):
            items += [
                {"idempotencyKey": f"{key}:in", "type": "checkIn",
                 "checkIn": ada.check_in_body(berlin, key, at(BERLIN, f"{date} 08:57:10"), evidence=DWELL)},
                {"idempotencyKey": f"{key}:hb1", "type": "heartbeat",
                 "heartbeat": {"sessionKey": key, "ts": at(BERLIN, f"{date} 12:00:00")}},
                {"idempotencyKey": f"{key}:out", "type": "checkOut",
                 "checkOut": {"sessionKey": key, "ts": at(BERLIN, f"{date} 17:35:45"), "reason": "regionExit",
                              "source": "automatic"}}]
        stray = ada.check_in_body(berlin, "ada-stray", at(BERLIN, "2026-10-06 13:00:00"))
        stray["beacon"]["major"] = 4242
        items.append({"idempotencyKey": "ada-stray:in", "type": "checkIn", "checkIn": stray})
        results = ada.batch("ada-batch-2026-10-06", items)["results"]
        if [r["status"] for r in results] != [201, 200, 200, 201, 200, 200, 422]:
            raise Failure(f"batch results {results}")
        # 7 Oct: a manual check-in (the beacon's battery) and a manual check-out.
        ada.check_in(berlin, "ada-1007", at(BERLIN, "2026-10-07 09:03:00"), source="manual",
                     reason="The gate beacon's battery is flat", evidence={"sampleCount": 0, "walking": False,
                                                                            "rule": "manual"})
        ada.check_out("ada-1007", at(BERLIN, "2026-10-07 17:30:00"), reason="manual", source="manual")
        # 8 Oct: never checked out (HR closes it below); 9 Oct: HR moves its check-in.
        ada.day(berlin, BERLIN, "ada-1008", "2026-10-08", "08:59:00", None, beats=("16:45:00",))
        ada.day(berlin, BERLIN, "ada-1009", "2026-10-09", "09:20:00", "17:31:00")
        # 12 to 16 Oct; 14 Oct is corrected on her request after the period is locked.
        for date, start, end in (("2026-10-12", "08:50:00", "17:45:00"), ("2026-10-13", "09:01:00", "17:29:00"),
                                 ("2026-10-14", "09:00:00", "16:10:00"), ("2026-10-15", "08:45:00", "18:30:00"),
                                 ("2026-10-16", "09:05:00", "12:10:00")):
            ada.day(berlin, BERLIN, "ada-" + date[5:7] + date[8:], date, start, end, beats=("12:30:00",)
                    if end > "12:30:00" else ())
        # From 20 Oct the new phone (19 Oct is leave). 26 Oct: the week after the clocks went back.
        for date, start, end in (("2026-10-20", "08:58:00", "17:33:00"), ("2026-10-21", "09:02:00", "17:30:00"),
                                 ("2026-10-22", "08:40:00", "19:15:00"), ("2026-10-23", "09:00:00", "15:00:00"),
                                 ("2026-10-26", "08:59:00", "17:31:00"), ("2026-10-27", "09:00:00", "17:30:00")):
            ada2.day(berlin, BERLIN, "ada2-" + date[5:7] + date[8:], date, start, end, beats=("13:00:00",))
        # 30 Oct: still open (no check-out ever came), last heard at 16:20.
        ada2.day(berlin, BERLIN, "ada2-1030", "2026-10-30", "09:04:00", None, beats=("11:00:00", "16:20:00"))

        # Bo, Berlin nights: over midnight, into a holiday, and the night the clocks went back.
        for start_date, end_date, key in (("2026-10-02", "2026-10-03", "bo-1002"),
                                          ("2026-10-09", "2026-10-10", "bo-1009"),
                                          ("2026-10-16", "2026-10-17", "bo-1016"),
                                          ("2026-10-24", "2026-10-25", "bo-1024"),
                                          ("2026-10-30", "2026-10-31", "bo-1030")):
            bo.check_in(berlin, key, at(BERLIN, f"{start_date} 21:55:00"), evidence=EVIDENCE)
            bo.heartbeat(key, at(BERLIN, f"{end_date} 01:30:00"))
            bo.check_out(key, at(BERLIN, f"{end_date} 06:02:00"))
        # A phantom session on 20 Oct (voided by HR), and a heartbeat for it after the void.
        bo.day(berlin, BERLIN, "bo-1020", "2026-10-20", "14:00:00", "14:20:00", evidence=WALKING)

        # Chen, New York; 7 Oct is sick leave, 12 Oct a holiday worked anyway.
        for date, start, end in (("2026-10-01", "08:25:00", "17:05:00"), ("2026-10-02", "08:41:00", "17:00:00"),
                                 ("2026-10-05", "08:30:00", "17:20:00"), ("2026-10-06", "08:33:00", "16:00:00"),
                                 ("2026-10-08", "08:28:00", "17:10:00"), ("2026-10-09", "08:30:00", "13:00:00"),
                                 ("2026-10-12", "10:00:00", "14:00:00")):
            chen.day(ny, NEW_YORK, "chen-" + date[5:7] + date[8:], date, start, end, beats=("12:15:00",)
                     if end > "12:15:00" else ())
        # 13 Oct: the phone's clock 95 s behind (clockSkewSeconds).
        chen.check_in(ny, "chen-1013", at(NEW_YORK, "2026-10-13 08:31:00"), evidence=EVIDENCE, skew=95)
        chen.check_out("chen-1013", at(NEW_YORK, "2026-10-13 17:02:00"))
        # A check-out that arrives first and turns out earlier than the check-in: kept pending.
        chen.check_out("chen-1015", at(NEW_YORK, "2026-10-15 08:10:00"), expect=(202,))
        chen.check_in(ny, "chen-1015", at(NEW_YORK, "2026-10-15 08:35:00"), evidence=EVIDENCE)
        chen.check_out("chen-1015", at(NEW_YORK, "2026-10-15 17:00:00"), idem="chen-1015:out2")

        # Dana, New York (shift-start days): an evening shift past midnight.
        for date, start, end in (("2026-10-01", "09:10:00", "17:00:00"), ("2026-10-02", "08:30:00", "17:30:00")):
            dana.day(ny, NEW_YORK, "dana-" + date[5:7] + date[8:], date, start, end)
        dana.check_in(ny, "dana-1006", at(NEW_YORK, "2026-10-06 18:00:00"), evidence=DWELL)
        dana.heartbeat("dana-1006", at(NEW_YORK, "2026-10-06 23:45:00"))
        dana.check_out("dana-1006", at(NEW_YORK, "2026-10-07 02:30:00"))
        dana.day(ny, NEW_YORK, "dana-1021", "2026-10-21", "08:30:00", "16:30:00")

        # Émile, Berlin, the first week (deactivated at the end).
        for date in ("2026-10-05", "2026-10-06", "2026-10-07", "2026-10-08", "2026-10-09"):
            emile.day(berlin, BERLIN, "emile-" + date[5:7] + date[8:], date, "08:55:00", "17:35:00")

        # Farah: the Pune annex (deleted later), then New York.
        for date in ("2026-10-01", "2026-10-02"):
            farah.day(pune, PUNE, "farah-" + date[5:7] + date[8:], date, "09:30:00", "18:00:00", beats=("13:30:00",))
        for date in ("2026-10-26", "2026-10-27"):
            farah.day(ny, NEW_YORK, "farah-" + date[5:7] + date[8:], date, "09:00:00", "17:00:00")

        # Gus, Berlin (erased at the end); a heartbeat whose check-in never came.
        gus.day(berlin, BERLIN, "gus-1012", "2026-10-12", "07:00:00", "15:30:00")
        gus.day(berlin, BERLIN, "gus-1013", "2026-10-13", "07:05:00", "15:00:00")
        gus.heartbeat("gus-1014", at(BERLIN, "2026-10-14 10:00:00"), expect=(202,))

    # Deleting the annex; Émile deactivated.
    def people_changes(self):
        api = self.api
        api.call("DELETE", f"/v1/admin/sites/{self.pune['siteId']}", expect=(200, 204))
        # A check-in at the deleted site is refused (422), its answer kept under its key.
        self.phones["farah"].check_in(self.pune, "farah-1029", at(PUNE, "2026-10-29 09:30:00"), expect=(422,),
                                      evidence=EVIDENCE)

    def pay_periods(self):
        api = self.api
        for action in ("approve", "lock"):
            api.admin("POST", "/v1/admin/pay-periods/2026-10-01", {"action": action}, token=self.hr_token)

    def requests_and_corrections(self):
        api, p, hr = self.api, self.phones, self.hr_token
        berlin, ny = self.berlin, self.newyork
        # HR: 8 Oct closed, 9 Oct's check-in moved (with the payroll token), Farah's 2 Oct moved to New York.
        api.admin("POST", "/v1/admin/sessions/ada-1008/corrections",
                  {"checkOutAt": at(BERLIN, "2026-10-08 17:30:00"), "reason": "Forgot to leave through the gate"})
        api.admin("POST", "/v1/admin/sessions/ada-1009/corrections",
                  {"checkInAt": at(BERLIN, "2026-10-09 09:00:00"), "reason": "Gate log shows 09:00"}, token=hr)
        api.admin("POST", "/v1/admin/sessions/farah-1002/corrections",
                  {"siteId": ny["siteId"], "checkInAt": at(PUNE, "2026-10-02 09:15:00"),
                   "reason": "The annex beacon was registered to the wrong site"})
        # An added session (Farah forgot her phone) and a void (Bo's phantom).
        api.admin("POST", "/v1/admin/sessions", {"userId": self.people["farah"], "siteId": ny["siteId"],
                                                 "checkInAt": at(NEW_YORK, "2026-10-28 09:00:00"),
                                                 "checkOutAt": at(NEW_YORK, "2026-10-28 17:15:00"),
                                                 "reason": "Phone left at home; badge log"})
        api.admin("POST", "/v1/admin/sessions/bo-1020/void", {"reason": "Phantom check-in while passing by"})
        p["bo"].heartbeat("bo-1020", at(BERLIN, "2026-10-20 14:25:00"))
        # The manager (Berlin) voids nothing but reads; an added Berlin session by the manager's console
        # is not needed. Requests: Dana's missing 20 Oct approved, Chen's missing 14 Oct rejected,
        # Dana's 21 Oct correction left pending.
        filed = api.call("POST", "/v1/me/requests", p["dana"].token, expect=(201,), body={
            "siteId": ny["siteId"], "checkInAt": at(NEW_YORK, "2026-10-20 08:30:00"),
            "checkOutAt": at(NEW_YORK, "2026-10-20 16:45:00"), "reason": "My phone was flat all day",
            "evidence": {"lastBeaconHeardAt": at(NEW_YORK, "2026-10-19 17:02:00")}})
        api.admin("POST", f"/v1/admin/requests/{filed['requestId']}/approve", {"comment": "Badge log agrees"})
        filed = api.call("POST", "/v1/me/requests", p["chen"].token, expect=(201,), body={
            "siteId": ny["siteId"], "checkInAt": at(NEW_YORK, "2026-10-14 08:30:00"),
            "checkOutAt": at(NEW_YORK, "2026-10-14 17:00:00"), "reason": "Worked from the office, phone at home"})
        api.admin("POST", f"/v1/admin/requests/{filed['requestId']}/reject",
                  {"comment": "You were on a remote day; ask your manager"}, token=hr)
        api.call("POST", "/v1/me/requests", p["dana"].token, expect=(201,), body={
            "sessionKey": "dana-1021", "checkOutAt": at(NEW_YORK, "2026-10-21 17:15:00"),
            "reason": "I left at 17:15", "evidence": {"motionStartedAt": at(NEW_YORK, "2026-10-21 17:14:00")}})

    def after_the_lock(self):
        api, p = self.api, self.phones
        # Ada's 14 Oct check-out corrected on her request after 1–15 Oct was locked (an exception).
        filed = api.call("POST", "/v1/me/requests", p["ada"].token, expect=(201,), body={
            "sessionKey": "ada-1014", "checkOutAt": at(BERLIN, "2026-10-14 17:30:00"),
            "reason": "The doctor's appointment was cancelled; I stayed",
            "evidence": {"motionStartedAt": at(BERLIN, "2026-10-14 17:29:00")}})
        api.admin("POST", f"/v1/admin/requests/{filed['requestId']}/approve", {})
        api.admin("POST", "/v1/admin/pay-periods/2026-10-16", {"action": "approve"}, token=self.hr_token)
        # The manager of Berlin reads who was there and the sessions.
        self.manager.page("/console/presence")
        api.call("GET", f"/v1/admin/timesheets?from={MONTH[0]}&to={MONTH[1]}", token=self.hr_token)

    def endings(self):
        api = self.api
        api.admin("POST", f"/v1/admin/devices/{self.phones['ada'].device_id}/revoke")
        api.admin("POST", f"/v1/admin/employees/{self.people['emile']}/deactivate")
        api.admin("POST", f"/v1/admin/employees/{self.people['gus']}/deactivate")
        api.admin("POST", f"/v1/admin/employees/{self.people['gus']}/erase")
        self.manager.sign_out()


# --- One backend -----------------------------------------------------------------------------------

def counts_sqlite(path):
    import sqlite3
    with sqlite3.connect(path) as db:
        return {table: db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
                for table in ("sites", "employees", "devices", "sessions", "pendingSessionEvents", "ledgerEvents",
                              "ledgerSeals", "idempotencyKeys", "accounts", "apiTokens", "correctionRequests",
                              "timesheetSettings", "payPeriods", "lockedDays", "beacons")}


def counts_postgres(url):
    tables = ("sites", "employees", "devices", "sessions", "pending_session_events", "ledger_events", "ledger_seals",
              "idempotency_keys", "accounts", "api_tokens", "correction_requests", "timesheet_settings",
              "pay_periods", "locked_days", "beacons")
    query = " UNION ALL ".join(f"SELECT '{t}', count(*) FROM {t}" for t in tables)
    out = subprocess.run(["psql", url, "-At", "-F", "\t", "-c", query], capture_output=True, text=True, check=True)
    return {name: int(count) for name, count in (line.split("\t") for line in out.stdout.splitlines())}


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def make(backend, binary, commit, work, pg_url=None):
    goldens = os.path.join(HERE, "goldens", backend)
    os.makedirs(goldens, exist_ok=True)
    if backend == "sqlite":
        database = os.path.join(work, "attendance.sqlite")
    else:
        database = pg_url + ("&" if "?" in pg_url else "?") + "sslmode=disable"
    server = Server(binary, database, os.path.join(work, f"serve-{backend}.log"))
    server.start()
    try:
        if not server.owner_password:
            raise Failure(f"no console sign-in printed: {server.output}")
        month = Month(server, binary)
        calls = month.run()
        # The month's timesheet, exported as CSV by the server; the Date header is the clock it used.
        status, headers, csv = request(
            f"{server.url}/v1/admin/timesheets?from={MONTH[0]}&to={MONTH[1]}&format=csv", token=ADMIN_TOKEN)
        if status != 200:
            raise Failure(f"the CSV export answered {status}")
        exported = email.utils.parsedate_to_datetime(headers["Date"]).astimezone(datetime.timezone.utc)
        with open(os.path.join(goldens, "timesheet-2026-10.csv"), "wb") as out:
            out.write(csv)
        time.sleep(2)  # the sealer's next round
    finally:
        server.stop()
    verify = run_cli(binary, "ledger", "verify", "--seal", "--database", database)
    rebuild = run_cli(binary, "ledger", "rebuild", "--check", "--database", database)
    print(f"[{backend}] {verify.strip()} | {rebuild.strip().splitlines()[0]}")
    if backend == "sqlite":
        import sqlite3
        with sqlite3.connect(database) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        with sqlite3.connect(database, isolation_level=None) as db:
            db.execute("VACUUM")
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        for suffix in ("-wal", "-shm"):
            if os.path.exists(database + suffix):
                raise Failure(f"{database}{suffix} is still there")
        shutil.copyfile(database, os.path.join(HERE, "attendance.sqlite"))
        counts = counts_sqlite(database)
    else:
        with open(os.path.join(HERE, "postgresql.sql"), "w") as out:
            subprocess.run(["pg_dump", "--no-owner", "--no-privileges", pg_url], stdout=out, check=True)
        counts = counts_postgres(pg_url)
    meta = {"backend": backend, "timesheetFrom": MONTH[0], "timesheetThrough": MONTH[1],
            "timesheetExportedAt": exported.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "madeAt": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "binary": binary, "binarySHA256": sha256_of(binary), "commit": commit,
            "httpCalls": calls, "tables": counts,
            "sites": {"berlin": month.berlin["siteId"], "newyork": month.newyork["siteId"],
                      "pune": month.pune["siteId"]},
            "employees": month.people, "ledgerVerify": verify.strip().splitlines(),
            "ledgerRebuildCheck": rebuild.strip().splitlines()[:2]}
    if backend == "postgresql":
        meta["pgDump"] = subprocess.run(["pg_dump", "--version"], capture_output=True, text=True).stdout.strip()
    with open(os.path.join(goldens, "fixture.json"), "w") as out:
        json.dump(meta, out, indent=2, sort_keys=True, ensure_ascii=False)
        out.write("\n")
    print(f"[{backend}] {json.dumps(counts)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--attendance", required=True, help="the release's attendance executable")
    parser.add_argument("--commit", required=True, help="the commit it was built from (noted in fixture.json)")
    parser.add_argument("--backend", choices=("sqlite", "postgresql", "both"), default="both")
    args = parser.parse_args()
    binary = os.path.abspath(args.attendance)
    work = tempfile.mkdtemp(prefix="upgrade-fixture-")
    try:
        if args.backend in ("sqlite", "both"):
            make("sqlite", binary, args.commit, work)
        if args.backend in ("postgresql", "both"):
            started = subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway"), "start"], capture_output=True,
                                     text=True, check=True).stdout.split()
            url, directory = started[0], started[1]
            try:
                make("postgresql", binary, args.commit, work, pg_url=url)
            finally:
                subprocess.run([os.path.join(ROOT, "scripts", "pg-throwaway"), "stop", directory], check=False)
    except Failure as failure:
        print(f"FAILED: {failure} (logs in {work})", file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
