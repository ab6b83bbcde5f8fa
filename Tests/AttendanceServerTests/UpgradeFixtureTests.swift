import AttendanceExports
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import AttendanceTestSupport
import Foundation
import Testing

/// A database the release of 2026-11-27 (commit 7e79804) wrote, on each backend
/// (Tests/Fixtures/upgrade-2026-11-27, README.md there), opened by this release: its migrations
/// run, and everything that release read back from it reads back the same. Every session, ledger
/// row, seal, pending event, the month's timesheet rows (and the CSV that release's server
/// exported) and the directory are compared with the goldens field by field; the first row and
/// field that differ are named. The chain still verifies and the sessions still rebuild the same.
///
/// `UPGRADE_FIXTURE_RECORD=1` rewrites the goldens instead. It is meant to be run on that
/// release's sources only (the README says how): goldens recorded by a later release would prove
/// nothing.
@Suite struct UpgradeFixtureTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/upgrade-2026-11-27")
    static let recording = ProcessInfo.processInfo.environment["UPGRADE_FIXTURE_RECORD"] == "1"

    @Test(arguments: Backend.allCases)
    func whatTheReleaseOf20261127WroteReadsBackUnchanged(backend: Backend) async throws {
        let goldens = Self.fixture.appendingPathComponent("goldens/\(backend)")
        let facts = try Facts(goldens.appendingPathComponent("fixture.json"))
        let (repository, directory) = try await Self.open(backend)
        defer {
            repository.shutdown()
            if let directory { try? FileManager.default.removeItem(at: directory) }
        }
        let groups = try await Self.readBack(repository, facts: facts)
        let csv = try await Self.timesheetCSV(repository, facts: facts)
        let exported = try String(
            contentsOf: goldens.appendingPathComponent("timesheet-2026-10.csv"), encoding: .utf8)
        // The rows computed here, at the export's time, are the CSV the server exported then, but
        // for the figures a rule changed since (each named in `RuleChange.sinceTheRelease`).
        Self.compareLines(
            golden: RuleChange.apply(toCSV: exported), readBack: csv, what: "\(backend) timesheet-2026-10.csv")
        if Self.recording {
            for (name, tables) in groups { try Self.write(tables, to: goldens.appendingPathComponent(name)) }
            return
        }
        for (name, tables) in groups {
            let golden = RuleChange.apply(to: try Self.read(goldens.appendingPathComponent(name)))
            for table in tables {
                try Self.compare(
                    golden: #require(golden[table.name], "\(name) has no table \(table.name)"), table,
                    what: "\(backend) \(name) \(table.name)")
            }
        }
        // Not only equal to the goldens: the goldens hold what the fixture is meant to cover.
        let sessions = try #require(groups.flatMap(\.tables).first { $0.name == "sessions" })
        #expect(sessions.rows.count >= 40)
        #expect(sessions.rows.contains { $0["status"] == "voided" })
        #expect(sessions.rows.contains { $0["status"] == "open" })
        let summary = try #require(groups.flatMap(\.tables).first { $0.name == "summary" }?.rows.first)
        #expect(summary["pendingEventCount"] == "2")

        let ledger = LedgerService(repository: repository)
        let verification = try await ledger.verify().chain
        #expect(verification.isIntact, "the chain is broken: \(String(describing: verification.firstBreak))")
        #expect(verification.unsealed == 0)
        #expect("\(verification.sealed)" == summary["sealedRows"])
        let rebuild = try await ledger.rebuild(checkOnly: true)
        #expect(rebuild.differing.isEmpty, "sessions the ledger derives differently: \(rebuild.differing)")
        #expect("\(rebuild.sessions)" == summary["sessionCount"])
    }

    /// Every row the release wrote reads back as a typed `LedgerRecord`, strictly, and the record
    /// writes back the payload bytes its hash covers, but for people's free text, which this
    /// release writes to the personal part (`LedgerRecord.freeText`).
    @Test(arguments: Backend.allCases)
    func everyLedgerRowReadsAsATypedRecordThatWritesBackItsBytes(backend: Backend) async throws {
        let (repository, directory) = try await Self.open(backend)
        defer {
            repository.shutdown()
            if let directory { try? FileManager.default.removeItem(at: directory) }
        }
        var kinds: Set<LedgerKind> = []
        var id: Int64 = 0
        while true {
            let page = try await repository.ledgerEvents(after: id, limit: 500)
            for event in page {
                let record = try event.record()
                kinds.insert(record.kind)
                #expect(record.kind == event.kind)
                // Rows of this release keep people's free text in the personal part; the fixture's
                // rows kept it in the payload, which the record reads and writes to the personal part.
                var stored = try JSONDecoder().decode(LedgerPayload.self, from: event.payload)
                if let freeText = record.freeText, event.kind == .checkIn {
                    #expect(freeText.reason == stored.checkInReason)
                    stored.checkInReason = nil
                } else if let freeText = record.freeText {
                    #expect((freeText.reason ?? "") == (stored.reason ?? ""))
                    #expect(freeText.comment == stored.comment)
                    #expect(freeText.evidence == stored.requestEvidence)
                    (stored.reason, stored.comment, stored.requestEvidence) = (nil, nil, nil)
                }
                #expect(
                    String(decoding: record.payload.encoded(), as: UTF8.self)
                        == String(decoding: stored.encoded(), as: UTF8.self), "row \(event.id) (\(event.kind))")
            }
            guard let last = page.last else { break }
            id = last.id
        }
        // The fixture covers the kinds a session's life and a request's go through.
        let expected: Set<LedgerKind> = [
            .checkIn, .checkOut, .heartbeat, .sessionCorrected, .sessionAdded, .sessionVoided, .requestFiled,
            .siteCreated, .employeeCreated,
        ]
        #expect(expected.subtracting(kinds).isEmpty, "kinds missing from the fixture: \(expected.subtracting(kinds))")
    }

    /// `attendance ledger verify`, this release's command, on a copy of the SQLite fixture.
    @Test(.enabled(if: !UpgradeFixtureTests.recording))
    func theCommandLineVerifiesTheSQLiteFixturesChain() async throws {
        let copy = try Self.copyOfSQLiteFixture()
        defer { try? FileManager.default.removeItem(at: copy.deletingLastPathComponent()) }
        let attendance = try builtExecutable("attendance")
        let (status, output) = try await ThrowawayPostgres.offThePool {
            try Self.run(attendance.path, ["ledger", "verify", "--database", copy.path])
        }
        #expect(status == 0, "attendance ledger verify exited \(status): \(output)")
        #expect(output.contains("not sealed yet: 0") && output.contains("the chain is intact"), "\(output)")
    }

    // MARK: - Opening the fixture

    /// The fixture opened by this release, and the directory of the SQLite copy to remove after.
    static func open(_ backend: Backend) async throws -> (any ServerRepository, URL?) {
        switch backend {
        case .sqlite:
            let copy = try copyOfSQLiteFixture()
            return (try SQLiteRepository.open(path: copy.path), copy.deletingLastPathComponent())
        case .postgresql:
            let url = try await ThrowawayPostgres.shared.freshDatabaseURL()
            // pg_dump 15.14 and later fence the dump with \restrict and \unrestrict, which an earlier
            // psql does not know; the fixture is trusted, so the copy restored here goes without them.
            let dump = try String(contentsOf: fixture.appendingPathComponent("postgresql.sql"), encoding: .utf8)
                .components(separatedBy: "\n")
                .filter { !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ") }
                .joined(separator: "\n")
            let copy = FileManager.default.temporaryDirectory
                .appendingPathComponent("upgrade-fixture-\(UUID().uuidString.prefix(8)).sql")
            try dump.write(to: copy, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: copy) }
            // Off the cooperative pool: psql restores the dump in a child process.
            let (status, output) = try await ThrowawayPostgres.offThePool {
                try run("/usr/bin/env", ["psql", url, "-v", "ON_ERROR_STOP=1", "-q", "-f", copy.path])
            }
            try #require(status == 0, "psql could not restore postgresql.sql: \(output)")
            return (try await PostgresRepository.connect(url: url), nil)
        }
    }

    /// The fixture's file, copied into a directory of its own (the copy is migrated, not the fixture).
    static func copyOfSQLiteFixture() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("upgrade-fixture-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent("attendance.sqlite")
        try FileManager.default.copyItem(at: fixture.appendingPathComponent("attendance.sqlite"), to: copy)
        return copy
    }

    /// Runs a child process to its end (call it off the cooperative pool): exit status and output.
    static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, String) {
        let run = try ChildProcess.run(URL(fileURLWithPath: executable), arguments)
        return (run.status, run.stdout + run.stderr)
    }

    // MARK: - What the release reads back

    /// What `make-fixture.py` noted when it made the fixture.
    struct Facts {
        var from: LocalDate
        var through: LocalDate
        /// The server's clock when it exported the CSV (the timesheet depends on "now").
        var exportedAt: Date

        init(_ url: URL) throws {
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
            guard let from = (object["timesheetFrom"] as? String).flatMap({ LocalDate($0) }),
                let through = (object["timesheetThrough"] as? String).flatMap({ LocalDate($0) }),
                let exported = (object["timesheetExportedAt"] as? String).flatMap({
                    ISO8601DateFormatter().date(from: $0)
                })
            else {
                throw FixtureError(message: "\(url.path) lacks timesheetFrom, timesheetThrough or timesheetExportedAt")
            }
            self.from = from
            self.through = through
            self.exportedAt = exported
        }
    }

    struct FixtureError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    /// Rows of text fields (nil for a null), in a stated order, with the field that names a row.
    struct Table: Sendable {
        var name: String
        var key: String
        var rows: [[String: String?]]
    }

    /// The goldens' files and the tables each holds.
    static func readBack(_ repository: any ServerRepository, facts: Facts) async throws
        -> [(name: String, tables: [Table])]
    {
        [
            ("sessions.json", try await sessionTables(repository)),
            ("ledger.json", try await ledgerTables(repository)),
            ("timesheet-2026-10.json", try await timesheetTables(repository, facts: facts)),
            ("directory.json", try await directoryTables(repository)),
        ]
    }

    static func sessionTables(_ repository: any ServerRepository) async throws -> [Table] {
        let sessions = try await repository.allSessions().sorted { $0.sessionKey.rawValue < $1.sessionKey.rawValue }
        var pending: [[String: String?]] = []
        for employee in try await repository.employees().sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            for event in try await repository.pendingEvents(userId: employee.id).sorted(by: {
                ($0.sessionKey.rawValue, $0.receivedAt) < ($1.sessionKey.rawValue, $1.receivedAt)
            }) {
                pending.append([
                    "userId": employee.id.rawValue, "sessionKey": event.sessionKey.rawValue,
                    "kind": event.kind.rawValue, "at": text(event.at), "reason": event.reason,
                    "receivedAt": text(event.receivedAt),
                ])
            }
        }
        let verification = try await LedgerService(repository: repository).verify().chain
        let summary: [String: String?] = [
            "pendingEventCount": "\(try await repository.pendingEventCount(sessionKey: nil))",
            "sessionCount": "\(sessions.count)", "sealedRows": "\(verification.sealed)",
            "unsealedRows": "\(verification.unsealed)", "latestLedgerID": "\(try await repository.latestLedgerID())",
        ]
        return [
            Table(name: "sessions", key: "sessionKey", rows: sessions.map(row)),
            Table(name: "pendingEvents", key: "sessionKey", rows: pending),
            Table(name: "summary", key: "sessionCount", rows: [summary]),
        ]
    }

    static func row(_ session: SessionRecord) -> [String: String?] {
        let evidence = session.evidence
        return [
            "sessionKey": session.sessionKey.rawValue, "userId": session.userId.rawValue,
            "siteId": session.siteId.rawValue, "deviceId": session.deviceId?.rawValue,
            "checkInAt": text(session.checkInAt), "checkOutAt": text(session.checkOutAt),
            "checkOutReason": session.checkOutReason, "lastSeenAt": text(session.lastSeenAt),
            "source": session.source.rawValue, "corrected": "\(session.corrected)", "status": session.status,
            "voidedAt": text(session.voidedAt), "voidReason": session.voidReason,
            "checkInReason": evidence.checkInReason, "checkOutSource": evidence.checkOutSource?.rawValue,
            "appVersion": evidence.appVersion, "evidenceRule": evidence.rule,
            "evidenceSampleCount": evidence.sampleCount.map { "\($0)" },
            "evidenceMedianRSSI": text(evidence.medianRSSI),
            "evidenceStdevDB": text(evidence.stdevDB), "evidenceWalking": evidence.walking.map { "\($0)" },
            "clockSkewSeconds": text(evidence.clockSkewSeconds),
        ]
    }

    static func ledgerTables(_ repository: any ServerRepository) async throws -> [Table] {
        var rows: [[String: String?]] = []
        var id: Int64 = 0
        while true {
            let page = try await repository.ledgerEvents(after: id, limit: 500)
            for event in page {
                rows.append([
                    "id": "\(event.id)", "kind": event.kind.rawValue, "sessionKey": event.sessionKey?.rawValue,
                    "userId": event.userId?.rawValue, "actor": event.actor.rawValue,
                    "receivedAt": text(event.receivedAt), "deviceAt": text(event.deviceAt),
                    "payload": String(decoding: event.payload, as: UTF8.self),
                    "personal": event.personal.map { String(decoding: $0, as: UTF8.self) },
                    "personalDigest": event.personalDigest, "hash": event.hash,
                ])
            }
            guard let last = page.last else { break }
            id = last.id
        }
        var seals: [[String: String?]] = []
        var sequence: Int64 = 0
        while true {
            let page = try await repository.ledgerSeals(after: sequence, limit: 500)
            for (seal, event) in page {
                seals.append([
                    "sequence": "\(seal.sequence)", "eventId": "\(seal.eventId)", "chainHash": seal.chainHash,
                    "eventHash": event?.hash,
                ])
            }
            guard let last = page.last else { break }
            sequence = last.seal.sequence
        }
        return [Table(name: "ledger", key: "id", rows: rows), Table(name: "seals", key: "sequence", rows: seals)]
    }

    static func timesheetService(_ repository: any ServerRepository, facts: Facts) -> TimesheetService {
        TimesheetService(
            repository: repository, environment: .clock({ [exportedAt = facts.exportedAt] in exportedAt }))
    }

    static func timesheetTables(_ repository: any ServerRepository, facts: Facts) async throws -> [Table] {
        var days: [[String: String?]] = []
        var weeks: [[String: String?]] = []
        let query = TimesheetQuery(from: facts.from, through: facts.through)
        try await timesheetService(repository, facts: facts).forEachEmployee(query) { employee in
            for day in employee.days {
                days.append([
                    "row": "\(day.userId.rawValue)/\(day.siteId.rawValue)/\(day.date)", "userId": day.userId.rawValue,
                    "employeeName": employee.employee.name, "siteId": day.siteId.rawValue,
                    "date": day.date.description, "timeZone": day.timeZone,
                    "utcOffsetSeconds": day.utcOffsetSeconds.map(String.init).joined(separator: ","),
                    "firstIn": text(day.firstIn), "lastOut": text(day.lastOut), "proposedEnd": text(day.proposedEnd),
                    "workedMinutes": "\(day.workedMinutes)", "measuredBreakMinutes": "\(day.measuredBreakMinutes)",
                    "deductedBreakMinutes": "\(day.deductedBreakMinutes)", "eligibleMinutes": "\(day.eligibleMinutes)",
                    "expectedMinutes": day.expectedMinutes.map { "\($0)" }, "scheduledStart": text(day.scheduledStart),
                    "scheduledEnd": text(day.scheduledEnd), "lateMinutes": "\(day.lateMinutes)",
                    "earlyMinutes": "\(day.earlyMinutes)", "overtimeMinutes": day.overtimeMinutes.map { "\($0)" },
                    "sessionCount": "\(day.sessionCount)", "status": day.status.rawValue,
                    "flags": day.sortedFlags.map(\.rawValue).joined(separator: ","), "holiday": day.holiday,
                    "leaveType": day.leaveType, "leaveNote": day.leaveNote,
                ])
            }
            for week in employee.weeks {
                weeks.append([
                    "row": "\(week.userId.rawValue)/\(week.weekStart)", "userId": week.userId.rawValue,
                    "weekStart": week.weekStart.description, "workedMinutes": "\(week.workedMinutes)",
                    "expectedMinutes": week.expectedMinutes.map { "\($0)" },
                    "eligibleMinutes": "\(week.eligibleMinutes)",
                    "overtimeMinutes": week.overtimeMinutes.map { "\($0)" },
                ])
            }
        }
        return [Table(name: "days", key: "row", rows: days), Table(name: "weeks", key: "row", rows: weeks)]
    }

    /// The CSV export's bytes, as the server streams them, computed at the export's time.
    static func timesheetCSV(_ repository: any ServerRepository, facts: Facts) async throws -> String {
        var bytes: [UInt8] = []
        let query = TimesheetQuery(from: facts.from, through: facts.through)
        for try await chunk in TimesheetCSV(service: timesheetService(repository, facts: facts), query: query) {
            bytes += chunk
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func directoryTables(_ repository: any ServerRepository) async throws -> [Table] {
        let sites = try await repository.sites().sorted { $0.id.rawValue < $1.id.rawValue }.map { site in
            [
                "id": site.id.rawValue, "name": site.name, "timeZone": site.timeZone,
                "beaconUUID": site.beacon.uuid.uuidString, "major": "\(site.beacon.major)",
                "geofence": site.geofence.map { "\($0.latitude),\($0.longitude),\($0.radiusMeters)" },
                "deactivatedAt": text(site.deactivatedAt),
            ] as [String: String?]
        }
        let beacons = try await repository.beacons(siteId: nil).sorted { $0.id < $1.id }.map { beacon in
            [
                "id": beacon.id.rawValue, "siteId": beacon.siteId.rawValue, "minor": "\(beacon.minor)",
                "label": beacon.label,
                "txPowerDBm": text(beacon.txPowerDBm),
            ] as [String: String?]
        }
        let employees = try await repository.employees().sorted { $0.id.rawValue < $1.id.rawValue }.map { employee in
            [
                "id": employee.id.rawValue, "name": employee.name, "externalId": employee.externalId,
                "email": employee.email, "deactivatedAt": text(employee.deactivatedAt),
            ] as [String: String?]
        }
        let devices = try await repository.devices(userId: nil).sorted { $0.id.rawValue < $1.id.rawValue }
            .map { device in
                [
                    "id": device.id.rawValue, "userId": device.userId.rawValue, "platform": device.platform,
                    "deviceName": device.deviceName, "enrolledAt": text(device.enrolledAt),
                    "lastSeenAt": text(device.lastSeenAt), "revokedAt": text(device.revokedAt),
                    "state": device.state?.encoded(),
                ] as [String: String?]
            }
        let accounts = try await repository.accounts().sorted { $0.id < $1.id }.map { account in
            [
                "id": account.id.rawValue, "email": account.email, "role": account.role.rawValue,
                "sites": account.sites.map(\.rawValue).joined(separator: ","), "passwordHash": account.passwordHash,
                "totpSecret": account.totpSecret, "createdAt": text(account.createdAt),
                "deactivatedAt": text(account.deactivatedAt),
            ] as [String: String?]
        }
        let tokens = try await repository.apiTokens(accountId: nil).sorted { $0.id < $1.id }.map { token in
            [
                "id": token.id.rawValue, "accountId": token.accountId.rawValue, "name": token.name,
                "role": token.role.rawValue,
                "createdAt": text(token.createdAt), "lastUsedAt": text(token.lastUsedAt),
                "revokedAt": text(token.revokedAt),
            ] as [String: String?]
        }
        let requests = try await repository.requests(userId: nil, state: nil).sorted { $0.id < $1.id }.map { request in
            [
                "id": request.id.rawValue, "userId": request.userId.rawValue, "kind": request.kind.rawValue,
                "state": request.state.rawValue, "sessionKey": request.sessionKey?.rawValue,
                "siteId": request.siteId?.rawValue, "checkInAt": text(request.checkInAt),
                "checkOutAt": text(request.checkOutAt), "reason": request.reason,
                "evidence": request.evidence.keys.sorted().map { "\($0)=\(request.evidence[$0] ?? "")" }
                    .joined(separator: "\n"),
                "createdAt": text(request.createdAt), "decidedAt": text(request.decidedAt),
                "decidedBy": request.decidedBy?.rawValue, "comment": request.comment,
            ] as [String: String?]
        }
        guard let january = LocalDate("2026-01-01"), let december = LocalDate("2026-12-31") else {
            throw FixtureError(message: "LocalDate refused 2026-01-01 or 2026-12-31")
        }
        let periods = try await repository.payPeriods(overlapping: january...december).sorted { $0.dates < $1.dates }
        var locked: [[String: String?]] = []
        for period in periods {
            for day in try await repository.lockedDays(periodStart: period.dates.start).sorted(by: {
                ($0.userId.rawValue, $0.siteId.rawValue, $0.date) < ($1.userId.rawValue, $1.siteId.rawValue, $1.date)
            }) {
                locked.append([
                    "row": "\(day.periodStart)/\(day.userId.rawValue)/\(day.siteId.rawValue)/\(day.date)",
                    "periodStart": day.periodStart.description, "userId": day.userId.rawValue,
                    "siteId": day.siteId.rawValue, "date": day.date.description,
                    "row-json": String(decoding: day.row, as: UTF8.self),
                ])
            }
        }
        let settings = try await settingRows(repository)
        return [
            Table(name: "sites", key: "id", rows: sites), Table(name: "beacons", key: "id", rows: beacons),
            Table(name: "employees", key: "id", rows: employees), Table(name: "devices", key: "id", rows: devices),
            Table(name: "accounts", key: "id", rows: accounts), Table(name: "apiTokens", key: "id", rows: tokens),
            Table(name: "requests", key: "id", rows: requests),
            Table(
                name: "payPeriods", key: "start",
                rows: periods.map { period -> [String: String?] in
                    [
                        "start": period.dates.start.description, "end": period.dates.end.description,
                        "state": period.state.rawValue, "changedAt": text(period.changedAt),
                        "changedBy": period.changedBy?.rawValue, "lockedAt": text(period.lockedAt),
                    ]
                }),
            Table(name: "lockedDays", key: "row", rows: locked),
            Table(name: "timesheetSettings", key: "row", rows: settings),
        ]
    }

    /// Every timesheet setting as the one settings table held it until "2026-11-27 typed timesheet
    /// settings" (its key, owner, day and JSON body): the typed tables must give each back unchanged.
    static func settingRows(_ repository: any ServerRepository) async throws -> [[String: String?]] {
        guard let storage = repository as? any SQLStorage else {
            throw FixtureError(message: "\(type(of: repository)) is not an SQLStorage")
        }
        let times = try await storage.database.read { tx in
            var times: [String: Date] = [:]
            for (kind, table, key) in [
                ("schedule", "work_schedules", "id"), ("assignment", "schedule_assignments", "id"),
                ("siteRules", "site_rules", "site_id"), ("holiday", "holidays", "site_id || '/' || date"),
                ("leave", "leave_days", "user_id || '/' || date"), ("payCycle", "pay_cycles", "effective_from"),
            ] {
                for row in try await tx.query("SELECT \(raw: key), updated_at FROM \(raw: table)") {
                    times["\(kind)/\(try row[0] as String)"] = try row[1]
                }
            }
            return times
        }
        var settings: [TimesheetSetting] = try await repository.schedules().map { .schedule($0) }
        settings += try await repository.assignments(userId: nil).map { .assignment($0) }
        settings += try await repository.siteRules().map { .siteRules($0.key, $0.value) }
        settings += try await repository.holidays(siteId: nil, dates: nil).map { .holiday($0) }
        settings += try await repository.leaveDays(userId: nil, dates: nil).map { .leave($0) }
        settings += try await repository.payCycles().map { .payCycle($0) }
        let kinds = TimesheetSettingKind.allCases
        settings.sort { a, b in
            (kinds.firstIndex(of: a.key.kind) ?? 0, a.key.id) < (kinds.firstIndex(of: b.key.kind) ?? 0, b.key.id)
        }
        return settings.map { setting in
            let key = setting.key
            let (siteId, date): (SiteID?, LocalDate?) =
                switch setting {
                case .schedule: (nil, nil)
                case .assignment(let assignment): (assignment.siteId, nil)
                case .siteRules(let siteId, _): (siteId, nil)
                case .holiday(let holiday): (holiday.siteId, holiday.date)
                case .leave(let leave): (leave.siteId, leave.date)
                case .payCycle(let cycle): (nil, cycle.effectiveFrom)
                }
            let row = "\(key.kind.rawValue)/\(key.id)"
            return [
                "row": row, "kind": key.kind.rawValue, "id": key.id, "userId": setting.userId?.rawValue,
                "siteId": siteId?.rawValue, "date": date?.description,
                "body": TimesheetSettingCodec.auditText(setting), "updatedAt": text(times[row]),
            ]
        }
    }

    /// A time as epoch seconds, exactly (Double's shortest form that reads back as the same value).
    static func text(_ date: Date?) -> String? { date.map { "\($0.timeIntervalSince1970)" } }
    static func text(_ number: Double?) -> String? { number.map { "\($0)" } }

    // MARK: - Goldens

    static func write(_ tables: [Table], to url: URL) throws {
        var object: [String: Any] = [:]
        for table in tables {
            object[table.name] = table.rows.map { row in row.mapValues { $0.map { $0 as Any } ?? NSNull() } }
        }
        var data = try JSONSerialization.data(
            withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        data.append(0x0A)
        try data.write(to: url)
    }

    static func read(_ url: URL) throws -> [String: [[String: String?]]] {
        guard let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] else {
            throw FixtureError(message: "\(url.path) is not a JSON object")
        }
        return try object.mapValues { value in
            guard let rows = value as? [[String: Any]] else { throw FixtureError(message: "\(url.path): not rows") }
            return try rows.map { row in
                try row.mapValues { field -> String? in
                    if field is NSNull { return nil }
                    guard let text = field as? String else { throw FixtureError(message: "\(url.path): \(field)") }
                    return text
                }
            }
        }
    }

    /// Records the first row and field where `table` differs from `golden` (and a count that differs).
    static func compare(golden: [[String: String?]], _ table: Table, what: String) {
        if golden.count != table.rows.count {
            Issue.record("\(what): the goldens have \(golden.count) rows, \(table.rows.count) were read back")
        }
        for (index, (expected, found)) in zip(golden, table.rows).enumerated() {
            let name = (expected[table.key] ?? nil) ?? "?"
            // The row's key first: a row missing or added shows as the key that moved.
            for field in [table.key] + Set(expected.keys).union(found.keys).subtracting([table.key]).sorted() {
                let before = expected[field] ?? nil
                let after = found[field] ?? nil
                if before != after || expected.keys.contains(field) != found.keys.contains(field) {
                    Issue.record(
                        """
                        \(what): row \(index) (\(table.key) \(name)), field '\(field)': \
                        golden \(before.map { "'\($0)'" } ?? "null"), read back \(after.map { "'\($0)'" } ?? "null")
                        """)
                    return
                }
            }
        }
    }

    static func compareLines(golden: String, readBack: String, what: String) {
        guard golden != readBack else { return }
        // RFC 4180 lines end in CRLF, which is one Character in Swift.
        func lines(_ text: String) -> [Substring] {
            text.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" }
        }
        let expected = lines(golden)
        let found = lines(readBack)
        let line =
            zip(expected, found).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(expected.count, found.count)
        let before = line < expected.count ? "'\(expected[line])'" : "no line"
        let after = line < found.count ? "'\(found[line])'" : "no line"
        Issue.record("\(what): line \(line + 1) differs: golden \(before), read back \(after)")
    }
}

/// A figure of the fixture's month that a timesheet rule changed after the release of 2026-11-27,
/// on purpose and with its decision: the goldens stay as that release computed them, and the test
/// expects exactly these cells to read otherwise now (any other difference still fails it).
struct RuleChange {
    /// `days` or `weeks`.
    var table: String
    /// Whose row: the employee's name and the local date (a day), or the week's Monday (a week).
    var employee: String
    var date: String
    var field: String
    var before: String
    var after: String

    static let sinceTheRelease: [RuleChange] = [
        // Decision 0033: a shift over a clock change expects the time that passes. Bo's
        // 22:00-06:00 night of 2026-10-24 (Berlin falls back) expects 60 minutes more.
        RuleChange(
            table: "days", employee: "Bo Diddley", date: "2026-10-24", field: "expectedMinutes", before: "450",
            after: "510"),
        RuleChange(
            table: "weeks", employee: "Bo Diddley", date: "2026-10-19", field: "expectedMinutes", before: "900",
            after: "960"),
    ]

    /// The goldens' `days` and `weeks` with the changes applied (a week is found by the employee
    /// id of their days).
    static func apply(to groups: [String: [[String: String?]]]) -> [String: [[String: String?]]] {
        var groups = groups
        let ids = Dictionary(
            (groups["days"] ?? []).compactMap { row in
                (row["employeeName"] ?? nil).flatMap { name in (row["userId"] ?? nil).map { (name, $0) } }
            }, uniquingKeysWith: { first, _ in first })
        for change in sinceTheRelease {
            for table in [change.table] {
                groups[table] = groups[table]?.map { row in
                    let whose = table == "days" ? row["employeeName"] ?? nil : row["userId"] ?? nil
                    let wanted = table == "days" ? change.employee : ids[change.employee]
                    let date = (row[table == "days" ? "date" : "weekStart"] ?? nil)
                    guard whose == wanted, date == change.date, row[change.field] == change.before else { return row }
                    var changed = row
                    changed[change.field] = change.after
                    return changed
                }
            }
        }
        return groups
    }

    /// The exported CSV with the days' changes applied (its lines hold no quoted commas).
    static func apply(toCSV text: String) -> String {
        var lines = text.components(separatedBy: "\r\n")
        guard let header = lines.first?.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        else { return text }
        for change in sinceTheRelease where change.table == "days" {
            guard let column = header.firstIndex(of: change.field), let name = header.firstIndex(of: "employeeName"),
                let date = header.firstIndex(of: "date")
            else { continue }
            for index in lines.indices.dropFirst() {
                var cells = lines[index].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard cells.count == header.count, cells[name] == change.employee, cells[date] == change.date,
                    cells[column] == change.before
                else { continue }
                cells[column] = change.after
                lines[index] = cells.joined(separator: ",")
            }
        }
        return lines.joined(separator: "\r\n")
    }
}
