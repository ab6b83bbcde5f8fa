import AttendanceModels
import AttendanceRules
import Foundation

extension SQLStorage {
    public func fileRequest(_ request: CorrectionRequestRecord, actor: LedgerActor) async throws {
        try await database.write { tx in
            try await tx.appendLedger(request.filedEvent(actor: actor))
            try await tx.execute(
                """
                INSERT INTO correction_requests (id, user_id, kind, state, session_key, site_id, check_in_at,
                                                 check_out_at, reason, evidence, created_at)
                VALUES (\(request.id), \(request.userId), \(request.kind.rawValue), \(request.state.rawValue),
                        \(request.sessionKey), \(request.siteId), \(request.checkInAt), \(request.checkOutAt),
                        \(request.reason), \(RequestJSON.encode(request.evidence)), \(request.createdAt))
                """)
        }
    }

    public func requests(
        userId: UserID?, state: CorrectionRequestRecord.State?, sites: Set<SiteID>?, before: RequestCursor?,
        limit: Int
    ) async throws -> [CorrectionRequestRecord] {
        var conditions: [SQL] = []
        if let userId { conditions.append("user_id = \(userId)") }
        if let state { conditions.append("state = \(state.rawValue)") }
        if let sites {
            guard !sites.isEmpty else { return [] }
            let ids = sites.map(\.rawValue).sorted()
            conditions.append(
                """
                ((kind = 'correction' AND (site_id IS NULL OR site_id \(anyOf: ids)) AND EXISTS (
                    SELECT 1 FROM sessions WHERE sessions.session_key = correction_requests.session_key
                        AND sessions.site_id \(anyOf: ids)))
                    OR (kind <> 'correction' AND site_id \(anyOf: ids)))
                """)
        }
        if let before {
            conditions.append(
                "(created_at < \(before.createdAt) OR (created_at = \(before.createdAt) AND id < \(before.id)))")
        }
        let condition = SQL.where(conditions)
        return try await database.read { tx in
            try await RequestRows.requests(tx, "\(condition) ORDER BY created_at DESC, id DESC LIMIT \(limit)")
        }
    }

    public func request(id: CorrectionRequestID) async throws -> CorrectionRequestRecord? {
        try await database.read { try await RequestRows.requests($0, "WHERE id = \(id)").first }
    }

    public func decideRequest(
        id: CorrectionRequestID, approve: Bool, comment: String?, actor: LedgerActor, now: Date
    ) async throws -> RequestDecisionOutcome {
        // The session an approval changes is locked first, as every session writer does.
        let first = try await request(id: id)
        let key = first.flatMap { $0.kind == .correction ? $0.sessionKey : $0.addedSession?.sessionKey }
        return try await database.write(locking: key.map { [$0.rawValue] } ?? []) { tx in
            let found = try await RequestRows.requests(tx, "WHERE id = \(id)\(raw: tx.dialect.forUpdate)").first
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
                        try await SessionWrites.correct(tx, key, correction, actor: actor, requestId: id, now: now)
                    case .add(let added):
                        try await SessionWrites.add(tx, added, actor: actor, requestId: id, now: now)
                    }
                guard case .applied(let session) = outcome else { return .correctionRefused(outcome) }
                decided.sessionKey = session.sessionKey
            }
            try await tx.appendLedger(decided.decidedEvent())
            try await tx.execute(
                """
                UPDATE correction_requests SET state = \(decided.state.rawValue), session_key = \(decided.sessionKey),
                    decided_at = \(now), decided_by = \(actor.rawValue), comment = \(comment)
                WHERE id = \(id)
                """)
            return .decided(decided)
        }
    }

    public func eraseEmployee(
        id: UserID, pseudonym: String, actor: LedgerActor, now: Date
    ) async throws -> EmployeeRecord? {
        let (employee, erasedNow) = try await database.write { tx -> (EmployeeRecord?, Bool) in
            guard
                let employee = try await DirectoryRows.employees(tx, "WHERE id = \(id)\(raw: tx.dialect.forUpdate)")
                    .first
            else { return (nil, false) }
            // Active: refused by the caller. Erased already: erasing again is the same one erasure.
            guard !employee.isActive, employee.name != pseudonym else { return (employee, false) }
            try await tx.execute(
                "UPDATE employees SET name = \(pseudonym), email = NULL, external_id = NULL WHERE id = \(id)")
            try await ErasureRows.erase(tx, id)
            try await tx.appendLedger(LedgerEvent.erased(id, actor: actor, now: now))
            return (try await DirectoryRows.employees(tx, "WHERE id = \(id)").first, true)
        }
        if erasedNow { try await database.scrubFreedSpace() }
        return employee
    }
}

package enum RequestRows {
    package static func requests(_ tx: any SQLTransaction, _ condition: SQL) async throws -> [CorrectionRequestRecord] {
        try await tx.query(
            """
            SELECT id, user_id, kind, state, session_key, site_id, check_in_at, check_out_at, reason, evidence,
                created_at, decided_at, decided_by, comment
            FROM correction_requests \(condition)
            """
        ).map { row in
            let id: CorrectionRequestID = try row[0]
            return CorrectionRequestRecord(
                id: id, userId: try row[1],
                kind: try StoredValue.decode(
                    try row[2] as String, as: CorrectionRequestRecord.Kind.self, table: "correction_requests",
                    row: id.rawValue,
                    column: "kind"),
                state: try StoredValue.decode(
                    try row[3] as String, as: CorrectionRequestRecord.State.self, table: "correction_requests",
                    row: id.rawValue, column: "state"),
                sessionKey: try row[4], siteId: try row[5], checkInAt: try row[6], checkOutAt: try row[7],
                reason: try row[8], evidence: try RequestJSON.decode(try row[9], row: id), createdAt: try row[10],
                decidedAt: try row[11], decidedBy: (try row[12] as String?).map { LedgerActor(rawValue: $0) },
                comment: try row[13])
        }
    }
}

/// A request's evidence as stored: canonical JSON of a string map.
package enum RequestJSON {
    package static func encode(_ evidence: [String: String]) -> String {
        String(decoding: (try? LedgerPayload.encoder.encode(evidence)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The stored evidence, or an error naming the request: never an empty map in its place.
    package static func decode(_ text: String, row id: CorrectionRequestID) throws -> [String: String] {
        do {
            return try JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        } catch {
            throw StoredValueError(
                table: "correction_requests", row: id.rawValue, column: "evidence", value: String(text.prefix(80)),
                expected: "a JSON object of strings")
        }
    }
}
