import AttendanceModels
import AttendanceRules
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import GRDB
import PostgresNIO
import Testing

@testable import AttendanceServer

/// Erasure by crypto-shredding, tried as an attacker with a copy of the database would: after an
/// employee is erased, no hash of anything personal about them is in the database's files (the
/// attack on the old scheme: guess "Frank Fischer" or six leave types and compare SHA-256s), their
/// name, phone's name and free text are gone, their locked rows keep the hours without the leave
/// type, and the chain and the tree still verify.
@Suite struct ErasureTests {
    static let secrets = [
        "Frank Fischer", "frank.fischer@example.com", "FF-1017", "Dieter's iPhone", "sick",
        "flu with a fever", "Doctor's note from Dr. Weber, cardiology", "At the clinic until noon",
        "Ask Dr. Weber for a note", "Visit to the oncologist", "Leaving for my therapy session",
        "Forgot my badge at the hospital",
    ]

    @Test(arguments: Backend.allCases) func anErasedEmployeeLeavesNoGuessableTraceAndTheLedgerVerifies(
        backend: Backend
    ) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let frank = try await Self.recordAYear(live)
        let user = UserID(frank.userId)
        // What the earlier scheme kept after erasure: SHA-256 of each personal part as written.
        var digests = Set(Self.secrets.map { SHA256.hex($0) })
        let rows = try await live.repository.ledgerEvents(LedgerFilter(userId: user), before: nil, limit: 500)
        for row in rows {
            guard let opened = row.opened?.encoded() else { continue }
            digests.insert(SHA256.hex(bytes: opened))
            // Stored sealed, not as written.
            #expect(row.personal.map(PersonalSeal.isSealed) == true, "row \(row.id) (\(row.kind))")
        }
        #expect(rows.filter { $0.opened != nil }.count >= 6, "\(rows.map(\.kind))")
        let before = try await live.send("GET", "/v1/admin/audit?userId=\(frank.userId)&limit=500").text
        for secret in ["Frank Fischer", "Dr. Weber", "At the clinic until noon", "Visit to the oncologist", "sick"] {
            #expect(before.contains(secret), "the audit shows '\(secret)' before erasure")
        }
        let files = try await Self.databaseFiles(live.repository)
        #expect(try files.contains { try Data(contentsOf: $0).range(of: Data("Frank Fischer".utf8)) != nil })

        #expect(try await live.send("POST", "/v1/admin/employees/\(frank.userId)/deactivate").status == 200)
        for _ in 0..<2 {
            let erased = try await live.send("POST", "/v1/admin/employees/\(frank.userId)/erase")
            #expect(erased.status == 200 && erased.json["name"] as? String == "Erased employee \(frank.userId)")
        }

        let after = try await live.send("GET", "/v1/admin/audit?userId=\(frank.userId)&limit=500")
        for secret in Self.secrets { #expect(!after.text.contains(secret), "the audit still shows '\(secret)'") }
        let kinds = after.json["items"] as? [[String: Any]] ?? []
        #expect(kinds.filter { $0["kind"] as? String == "employee.erased" }.count == 1)
        #expect(try await live.repository.devices(userId: user).allSatisfy { $0.deviceName == nil })
        #expect(
            try await live.repository.requests(userId: user, state: nil).allSatisfy {
                $0.reason.isEmpty && $0.comment == nil && $0.evidence.isEmpty
            })
        let locked = try await live.repository.lockedDays(periodStart: LocalDate("2026-06-01")!)
        let leave = locked.compactMap { TimesheetDayCodec.decode($0.row) }.filter { $0.userId.rawValue == frank.userId }
        #expect(leave.contains { $0.leaveType == TimesheetDayCodec.erasedLeaveType })
        #expect(leave.allSatisfy { $0.leaveType != "sick" })
        let sessions = try await live.send("GET", "/v1/admin/sessions?userId=\(frank.userId)").json["items"] as? [Any]
        #expect(sessions?.count == 3, "the hours stay")

        // The files: no digest of anything personal, raw or hex; on SQLite (which zeroes what it
        // deletes) no plaintext either. PostgreSQL keeps old row versions until VACUUM reuses
        // their space (docs/LEDGER.md), so there only the hashes are held to this.
        let scrubbed = try await Self.databaseFiles(live.repository)
        for file in scrubbed {
            let bytes = try Data(contentsOf: file)
            for digest in digests {
                #expect(bytes.range(of: Data(digest.utf8)) == nil, "\(file.lastPathComponent) holds \(digest)")
                #expect(bytes.range(of: Data(Self.raw(digest))) == nil, "\(file.lastPathComponent) holds raw \(digest)")
            }
            if backend == .sqlite {
                for secret in Self.secrets where secret != "sick" {
                    #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(file.lastPathComponent) holds '\(secret)'")
                }
            }
        }
        let ledger = LedgerService(repository: live.repository)
        try await ledger.sealAll(now: Date())
        let verified = try await ledger.verify()
        #expect(verified.isIntact, "\(verified.problems)")
        let rebuilt = try await ledger.rebuild(checkOnly: true)
        #expect(rebuilt.differing.isEmpty, "\(rebuilt.differing)")
        try await live.stop()
    }

    /// Frank's record: a phone with its name, three sessions (one corrected and checked out by hand,
    /// one checked in by hand and left open, one added and voided), a request with evidence and its
    /// rejection, a sick day with a note, and the month locked with it.
    static func recordAYear(_ live: LiveServer) async throws -> LiveServer.Enrolled {
        let site =
            try await live.send(
                "POST", "/v1/admin/sites",
                json: [
                    "name": "Plant", "timeZone": "Europe/Berlin", "beaconUUID": "FDA50693-0000-0000-0000-290995101092",
                    "major": 1,
                ]
            ).json["siteId"] as? String ?? ""
        let userId =
            try await live.send(
                "POST", "/v1/admin/employees",
                json: ["name": "Frank Fischer", "email": "frank.fischer@example.com", "externalId": "FF-1017"]
            ).json["userId"] as? String ?? ""
        let code =
            try await live.send("POST", "/v1/admin/enrollment-codes", json: ["userId": userId]).json["code"]
            as? String ?? ""
        let enrollment = try await live.send(
            "POST", "/v1/devices/enroll", json: ["code": code, "platform": "ios", "deviceName": "Dieter's iPhone"]
        ).json
        let frank = LiveServer.Enrolled(
            siteId: site, userId: userId, deviceId: enrollment["deviceId"] as? String ?? "",
            token: enrollment["deviceToken"] as? String ?? "")
        let start = Date().addingTimeInterval(-7_200)
        #expect(
            try await live.send(
                "POST", "/v1/attendance/check-in", token: frank.token, key: "in",
                json: LiveServer.checkIn(frank, session: "s-ff", ts: start)
            ).status == 201)
        let corrected = try await live.send(
            "POST", "/v1/admin/sessions/s-ff/corrections",
            json: [
                "checkInAt": RFC3339Text.format(start.addingTimeInterval(-600)),
                "reason": "Doctor's note from Dr. Weber, cardiology",
            ])
        #expect(corrected.status == 200, "\(corrected.text)")
        let filed = try await live.send(
            "POST", "/v1/me/requests", token: frank.token,
            json: [
                "sessionKey": "s-ff", "checkOutAt": RFC3339Text.format(start.addingTimeInterval(3_600)),
                "reason": "At the clinic until noon",
                "evidence": ["motionStartedAt": RFC3339Text.format(start.addingTimeInterval(3_600))],
            ])
        #expect(filed.status == 201, "\(filed.text)")
        let requestId = filed.json["requestId"] as? String ?? ""
        let rejected = try await live.send(
            "POST", "/v1/admin/requests/\(requestId)/reject", json: ["comment": "Ask Dr. Weber for a note"])
        #expect(rejected.status == 200, "\(rejected.text)")
        let leftByHand = try await live.send(
            "POST", "/v1/attendance/check-out", token: frank.token, key: "out",
            json: [
                "sessionKey": "s-ff", "ts": RFC3339Text.format(start.addingTimeInterval(4_000)),
                "reason": "Leaving for my therapy session", "source": "manual",
            ])
        #expect(leftByHand.status == 200, "\(leftByHand.text)")
        // A manual check-in left open: the deactivation closes it.
        var manual = LiveServer.checkIn(frank, session: "s-ff2", ts: start.addingTimeInterval(5_000))
        manual["source"] = "manual"
        manual["reason"] = "Forgot my badge at the hospital"
        let openByHand = try await live.send(
            "POST", "/v1/attendance/check-in", token: frank.token, key: "in-2", json: manual)
        #expect(openByHand.status == 201, "\(openByHand.text)")
        let added = try await live.send(
            "POST", "/v1/admin/sessions",
            json: [
                "userId": userId, "siteId": site, "checkInAt": "2026-06-02T07:00:00Z",
                "checkOutAt": "2026-06-02T15:00:00Z", "reason": "Badge log",
            ])
        #expect(added.status == 201, "\(added.text)")
        let voidKey = added.json["sessionKey"] as? String ?? ""
        let voided = try await live.send(
            "POST", "/v1/admin/sessions/\(voidKey)/void", json: ["reason": "Visit to the oncologist"])
        #expect(voided.status == 200, "\(voided.text)")
        let sick = try await live.send(
            "PUT", "/v1/admin/employees/\(userId)/leave/2026-06-03",
            json: ["type": "sick", "note": "flu with a fever", "siteId": site])
        #expect(sick.status == 200, "\(sick.text)")
        #expect(try await live.send("PUT", "/v1/admin/pay-cycles/2026-05-01", json: ["cycle": "monthly"]).status == 200)
        for action in ["approve", "lock"] {
            let changed = try await live.send("POST", "/v1/admin/pay-periods/2026-06-01", json: ["action": action])
            #expect(changed.status == 200, "\(action): \(changed.text)")
        }
        let locked = try await live.repository.lockedDays(periodStart: LocalDate("2026-06-01")!)
        #expect(locked.contains { String(decoding: $0.row, as: UTF8.self).contains("\"sick\"") })
        return frank
    }

    /// The files that hold the database: SQLite's file and WAL; PostgreSQL's files of this
    /// database and its WAL (after a checkpoint).
    static func databaseFiles(_ repository: any ServerRepository) async throws -> [URL] {
        switch repository {
        case let sqlite as SQLiteRepository:
            let path = try #require(sqlite.writer as? DatabasePool).path
            return [path, path + "-wal"].map(URL.init(fileURLWithPath:))
                .filter { FileManager.default.fileExists(atPath: $0.path) }
        case let postgres as PostgresRepository:
            try await postgres.client.query("CHECKPOINT", logger: postgres.logger)
            var found: (String, Int)?
            for try await (directory, oid) in try await postgres.client.query(
                """
                SELECT current_setting('data_directory'), oid::int FROM pg_database
                WHERE datname = current_database()
                """,
                logger: postgres.logger
            ).decode((String, Int).self) {
                found = (directory, oid)
            }
            let (directory, oid) = try #require(found)
            let data = URL(fileURLWithPath: directory)
            return try [data.appendingPathComponent("base/\(oid)"), data.appendingPathComponent("pg_wal")].flatMap {
                try FileManager.default.contentsOfDirectory(at: $0, includingPropertiesForKeys: nil)
            }.filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
        default:
            Issue.record("no files for \(type(of: repository))")
            return []
        }
    }

    /// A hex digest's bytes.
    static func raw(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }
}
