#!/usr/bin/env python3
"""Kill -9 under load: `attendance serve` SIGKILLed at random points while several threads send
check-ins and check-outs, restarted on the same database each time (docs/SERVER.md, "Crashes").

Every worker thread has its own employee and enrolled phone and sends its sessions' check-in and
check-out, each under its own Idempotency-Key, and retries what got no 2xx (a refused connection, a
reset, a timeout, a 409 or a 5xx) with the same key and body, as the app's outbox does. Meanwhile
the server is killed with SIGKILL `--kills` times, each after a random number of newly answered
requests, and started again on the same database. At the end:

- every request that was answered 2xx before a kill is answered again with the same status and
  the same bytes (its stored answer survived the kill);
- every session exists once, checked in and out, and its ledger history has exactly one check-in
  and one check-out row (nothing was counted twice, nothing was lost);
- `attendance ledger verify --seal` and `attendance ledger rebuild --check` agree with the tables.

Bounded: `--workers` × `--sessions` sessions, a deadline of `--deadline` seconds, requests only to
the server it started on loopback. Prints the seed; exit status 0 when every check holds.

    scripts/kill-under-load.py --database /tmp/kill.sqlite
    scripts/kill-under-load.py --database postgres://user@127.0.0.1:5432/db?sslmode=disable --seed 7
"""
import argparse
import datetime
import http.client
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from acceptance import ADMIN_TOKEN, UUID, Server, Steps, call, rfc3339  # noqa: E402

REQUEST_TIMEOUT = 15


def send(base, path, token, key, body):
    """One attempt: (status, body), or (None, reason) when no answer came."""
    request = urllib.request.Request(base + path, data=json.dumps(body, sort_keys=True).encode(), method="POST")
    request.add_header("Authorization", "Bearer " + token)
    request.add_header("Idempotency-Key", key)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        try:
            return error.code, error.read()
        except (http.client.HTTPException, OSError) as cut:
            return None, f"{type(cut).__name__}: {cut}"
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as error:
        return None, str(error)
    except http.client.HTTPException as error:
        # Killed while the answer was being written (the status line came, the body did not):
        # no answer, so the request is retried with its key, as the app's outbox does.
        return None, f"{type(error).__name__}: {error}"


class Load:
    """The shared state of the workers and the killer."""

    def __init__(self, server):
        self.server = server
        self.lock = threading.Lock()
        self.base = server.url
        self.answered = {}        # key -> (path, token, body, status, bytes): the 2xx each key got
        self.answered_count = 0
        self.attempts = 0
        self.unanswered = 0       # attempts with no answer (the kills' doing)
        self.retried_statuses = {}
        self.refusals = []        # 4xx other than 409: a request the server should not have refused
        self.stop = threading.Event()

    def url(self):
        with self.lock:
            return self.base


def worker(load, token, user, index, sessions, seed):
    rng = random.Random(seed * 1000 + index)
    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    requests = []
    for number in range(sessions):
        session = f"kill-{seed}-{index}-{number}"
        arrived = now - datetime.timedelta(hours=3) + datetime.timedelta(seconds=number * 60)
        requests.append(("/v1/attendance/check-in", f"{session}-in", {
            "userId": user, "beacon": {"uuid": UUID, "major": 1}, "ts": rfc3339(arrived), "sessionKey": session,
            "source": "automatic", "deviceMeta": {"deviceId": f"phone-{index}", "platform": "ios"}}))
        requests.append(("/v1/attendance/check-out", f"{session}-out", {
            "sessionKey": session, "ts": rfc3339(arrived + datetime.timedelta(seconds=30)), "reason": "regionExit",
            "source": "automatic"}))
    for path, key, body in requests:
        while not load.stop.is_set():
            status, data = send(load.url(), path, token, key, body)
            with load.lock:
                load.attempts += 1
                if status is None:
                    load.unanswered += 1
                elif 200 <= status < 300:
                    load.answered[key] = (path, token, body, status, data)
                    load.answered_count += 1
                    break
                else:
                    load.retried_statuses[status] = load.retried_statuses.get(status, 0) + 1
                    if status not in (409,) and status < 500:
                        load.refusals.append((key, status, data[:300]))
                        break
            time.sleep(0.05 + rng.random() * 0.2)


def killer(load, kills, rng, log):
    for kill in range(kills):
        with load.lock:
            start = load.answered_count
        wanted = rng.randint(3, 40)
        while not load.stop.is_set():
            with load.lock:
                if load.answered_count - start >= wanted:
                    break
            time.sleep(0.005)
        if load.stop.is_set():
            return
        time.sleep(rng.random() * 0.05)
        load.server.process.send_signal(signal.SIGKILL)
        load.server.process.wait(timeout=60)
        load.server.process.stdout.close()
        with load.lock:
            log.append(f"kill {kill + 1}: after {load.answered_count - start} answers since the last start")
        load.server.start()
        with load.lock:
            load.base = load.server.url


def enroll(base, index):
    status, employee = call(base, "POST", "/v1/admin/employees", ADMIN_TOKEN, body={"name": f"Worker {index}"})
    user = json.loads(employee)["userId"]
    _, code = call(base, "POST", "/v1/admin/enrollment-codes", ADMIN_TOKEN, body={"userId": user})
    _, enrolled = call(base, "POST", "/v1/devices/enroll", body={"code": json.loads(code)["code"], "platform": "ios"})
    return user, json.loads(enrolled)["deviceToken"]


def all_sessions(base):
    keys, cursor = [], ""
    while True:
        status, page = call(base, "GET", "/v1/admin/sessions?limit=500" + (f"&cursor={cursor}" if cursor else ""),
                            ADMIN_TOKEN)
        page = json.loads(page)
        keys += [item["sessionKey"] for item in page.get("items", [])]
        cursor = page.get("nextCursor") or ""
        if not cursor:
            return keys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True, help="SQLite path or postgres:// URL")
    parser.add_argument("--attendance", default=".build/debug/attendance", help="the executable (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=6, help="threads, each its own phone (default: %(default)s)")
    parser.add_argument("--sessions", type=int, default=50, help="sessions per worker (default: %(default)s)")
    parser.add_argument("--kills", type=int, default=5, help="SIGKILLs (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100_000, help="default: the clock")
    parser.add_argument("--deadline", type=float, default=600, help="seconds for the whole load (default: %(default)s)")
    args = parser.parse_args()
    print(f"kill-under-load: seed {args.seed}, {args.workers} workers x {args.sessions} sessions, {args.kills} kills")
    steps = Steps()
    server = Server(args.attendance, args.database)
    server.start()
    try:
        status, _ = call(server.url, "POST", "/v1/admin/sites", ADMIN_TOKEN,
                         body={"name": "Kill HQ", "timeZone": "Europe/Berlin", "beaconUUID": UUID, "major": 1})
        phones = [enroll(server.url, index) for index in range(args.workers)]
        load = Load(server)
        log = []
        threads = [threading.Thread(target=worker, args=(load, token, user, index, args.sessions, args.seed))
                   for index, (user, token) in enumerate(phones)]
        kill_thread = threading.Thread(target=killer, args=(load, args.kills, random.Random(args.seed), log))
        started = time.time()
        for thread in threads + [kill_thread]:
            thread.start()
        for thread in threads:
            thread.join(timeout=max(1, args.deadline - (time.time() - started)))
        load.stop.set()
        kill_thread.join(timeout=120)
        for line in log:
            print("  " + line)
        expected = args.workers * args.sessions
        print(f"  {load.attempts} attempts, {load.unanswered} without an answer, retried statuses "
              f"{dict(sorted(load.retried_statuses.items()))}, {time.time() - started:.1f} s")
        steps.check("the load finished", not any(thread.is_alive() for thread in threads),
                    f"{len(load.answered)} of {expected * 2} requests answered 2xx within {args.deadline:.0f} s")
        steps.check("five kills", len(log) == args.kills, f"{len(log)} kills of {args.kills}")
        steps.check("no refusal", not load.refusals, f"{load.refusals[:3]}")

        # Every 2xx answer survived: the resend of each is the same status and the same bytes.
        base = server.url
        differing = []
        for key, (path, token, body, status, data) in sorted(load.answered.items()):
            again_status, again = send(base, path, token, key, body)
            if again_status != status or again != data:
                differing.append((key, status, again_status))
        steps.check("every 2xx replayed", not differing and len(load.answered) == expected * 2,
                    f"{len(load.answered)} answered, {len(differing)} replayed differently {differing[:3]}")

        keys = all_sessions(base)
        wanted = {f"kill-{args.seed}-{index}-{number}" for index in range(args.workers) for number in range(args.sessions)}
        steps.check("every session once", len(keys) == len(set(keys)) and set(keys) == wanted,
                    f"{len(keys)} sessions listed, {len(set(keys))} distinct, {len(wanted)} sent")
        twice = []
        for key in sorted(wanted):
            status, history = call(base, "GET", f"/v1/admin/sessions/{key}/history", ADMIN_TOKEN)
            history = json.loads(history) if status == 200 else {}
            kinds = [entry.get("kind") for entry in history.get("entries", [])]
            closed = history.get("session", {}).get("checkOutAt") is not None
            if kinds.count("checkIn") != 1 or kinds.count("checkOut") != 1 or not closed:
                twice.append((key, status, kinds, closed))
        steps.check("every event in the ledger once", not twice, f"{len(twice)} sessions differ: {twice[:3]}")
    finally:
        if server.process.poll() is None:
            server.stop()
    verify = subprocess.run([args.attendance, "ledger", "verify", "--seal", "--database", args.database],
                            capture_output=True, text=True)
    rebuild = subprocess.run([args.attendance, "ledger", "rebuild", "--check", "--database", args.database],
                             capture_output=True, text=True)
    steps.check("ledger", verify.returncode == 0 and "the chain is intact" in verify.stdout
                and rebuild.returncode == 0 and "sessions that differed from the table: 0" in rebuild.stdout,
                f"verify exit {verify.returncode}, rebuild --check exit {rebuild.returncode}: "
                f"{(verify.stdout + rebuild.stdout).strip().splitlines()[-2:]}")
    print(f"{'OK' if steps.failures == 0 else 'FAILED'}: {steps.failures} check(s) failed (seed {args.seed})")
    return 1 if steps.failures else 0


if __name__ == "__main__":
    sys.exit(main())
