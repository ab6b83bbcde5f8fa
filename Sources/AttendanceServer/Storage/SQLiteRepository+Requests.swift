import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository: RequestRepository {

    public func fileRequest(_ request: CorrectionRequestRecord, actor: LedgerActor) async throws {
        try await writer.write { db in
            try Self.append(request.filedEvent(actor: actor), db: db)
            try db.cachedStatement(
                sql: """
                    INSERT INTO correction_requests (id, user_id, kind, state, session_key, site_id, check_in_at, check_out_at,
                                                    reason, evidence, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                request.id, request.userId.rawValue, request.kind.rawValue, request.state.rawValue,
                request.sessionKey?.rawValue, request.siteId?.rawValue, request.checkInAt?.timeIntervalSince1970,
                request.checkOutAt?.timeIntervalSince1970, request.reason, RequestJSON.encode(request.evidence),
                request.createdAt.timeIntervalSince1970,
            ])
        }
    }

    public func requests(
        userId: UserID?, state: CorrectionRequestRecord.State?
    ) async throws
        -> [CorrectionRequestRecord]
    {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let userId {
            conditions.append("user_id = ?")
            arguments.append(userId.rawValue)
        }
        if let state {
            conditions.append("state = ?")
            arguments.append(state.rawValue)
        }
        let sql =
            "SELECT * FROM correction_requests"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY created_at DESC, id DESC LIMIT 500"
        let bound = StatementArguments(arguments)
        return try await writer.read { db in
            try Row.fetchAll(db.cachedStatement(sql: sql), arguments: bound).map(Self.request)
        }
    }

    public func request(id: String) async throws -> CorrectionRequestRecord? {
        try await writer.read { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM correction_requests WHERE id = ?"), arguments: [id])
                .map(Self.request)
        }
    }

    public func decideRequest(
        id: String, approve: Bool, comment: String?, actor: LedgerActor, now: Date
    ) async throws
        -> RequestDecisionOutcome
    {
        try await writer.write { db in
            let found = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM correction_requests WHERE id = ?"), arguments: [id]
            ).map(Self.request)
            var decided: CorrectionRequestRecord
            let change: RequestRules.Change?
            switch RequestRules.decide(found, id: id, approve: approve, comment: comment, actor: actor, now: now) {
            case .answer(let outcome): return outcome
            case .decide(let request, let applying): (decided, change) = (request, applying)
            }
            if let change {
                let outcome =
                    switch change {
                    case .correct(let key, let correction):
                        try Self.correct(key, correction, actor: actor, requestId: id, now: now, db: db)
                    case .add(let added): try Self.add(added, actor: actor, requestId: id, now: now, db: db)
                    }
                guard case .applied(let session) = outcome else { return .correctionRefused(outcome) }
                decided.sessionKey = session.sessionKey
            }
            try Self.append(decided.decidedEvent(), db: db)
            try db.cachedStatement(
                sql: """
                    UPDATE correction_requests SET state = ?, session_key = ?, decided_at = ?, decided_by = ?, comment = ?
                    WHERE id = ?
                    """
            ).execute(arguments: [
                decided.state.rawValue, decided.sessionKey?.rawValue, now.timeIntervalSince1970,
                actor.rawValue, comment, id,
            ])
            return .decided(decided)
        }
    }

    public func eraseEmployee(
        id: UserID, pseudonym: String, actor: LedgerActor, now: Date
    ) async throws
        -> EmployeeRecord?
    {
        try await writer.write { db in
            let sql = "SELECT * FROM employees WHERE id = ?"
            guard
                let employee = try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [id.rawValue])
                    .map(Self.employeeRecord)
            else { return nil }
            guard !employee.isActive else { return employee }
            try db.cachedStatement(sql: "UPDATE employees SET name = ?, email = NULL, external_id = NULL WHERE id = ?")
                .execute(arguments: [pseudonym, id.rawValue])
            try db.cachedStatement(
                sql: "UPDATE ledger_events SET personal = NULL WHERE user_id = ? AND personal IS NOT NULL"
            ).execute(arguments: [id.rawValue])
            // Leave days (their type and note can be health data) go with the person.
            try db.cachedStatement(sql: "DELETE FROM timesheet_settings WHERE kind = 'leave' AND user_id = ?")
                .execute(arguments: [id.rawValue])
            try Self.append(LedgerEvent.erased(id, actor: actor, now: now), db: db)
            return try Row.fetchOne(db.cachedStatement(sql: sql), arguments: [id.rawValue]).map(Self.employeeRecord)
        }
    }

    static func request(_ row: Row) throws -> CorrectionRequestRecord {
        let id: String = row["id"]
        return CorrectionRequestRecord(
            id: id, userId: UserID(row["user_id"]),
            kind: try StoredValue.decode(
                row["kind"] as String, as: CorrectionRequestRecord.Kind.self, table: "correction_requests", row: id,
                column: "kind"),
            state: try StoredValue.decode(
                row["state"] as String, as: CorrectionRequestRecord.State.self, table: "correction_requests", row: id,
                column: "state"),
            sessionKey: (row["session_key"] as String?).map { SessionKey($0) },
            siteId: (row["site_id"] as String?).map { SiteID($0) },
            checkInAt: (row["check_in_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            checkOutAt: (row["check_out_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            reason: row["reason"], evidence: RequestJSON.decode(row["evidence"]),
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            decidedAt: (row["decided_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            decidedBy: (row["decided_by"] as String?).map { LedgerActor(rawValue: $0) }, comment: row["comment"])
    }
}

/// A request's evidence as stored: canonical JSON of a string map.
enum RequestJSON {
    static func encode(_ evidence: [String: String]) -> String {
        String(decoding: (try? LedgerPayload.encoder.encode(evidence)) ?? Data("{}".utf8), as: UTF8.self)
    }

    static func decode(_ text: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }
}
