import AttendanceModels
import Foundation
import PostgresNIO

extension PostgresRepository: RequestRepository {

    static let requestColumns = """
        id, user_id, kind, state, session_key, site_id, check_in_at, check_out_at, reason, evidence, created_at,
        decided_at, decided_by, comment
        """
    typealias RequestRow = (
        String, String, String, String, String?, String?, Double?, Double?, String, String, Double,
        Double?, String?, String?
    )

    static func request(_ row: RequestRow) throws -> CorrectionRequestRecord {
        let (id, user, kind, state, key, site, checkIn, checkOut, reason, evidence, created, decided, by, comment) = row
        return CorrectionRequestRecord(
            id: id, userId: UserID(user),
            kind: try StoredValue.decode(
                kind, as: CorrectionRequestRecord.Kind.self, table: "correction_requests", row: id, column: "kind"),
            state: try StoredValue.decode(
                state, as: CorrectionRequestRecord.State.self, table: "correction_requests", row: id, column: "state"),
            sessionKey: key.map { SessionKey($0) },
            siteId: site.map { SiteID($0) }, checkInAt: checkIn.map(Date.init(timeIntervalSince1970:)),
            checkOutAt: checkOut.map(Date.init(timeIntervalSince1970:)), reason: reason,
            evidence: RequestJSON.decode(evidence), createdAt: Date(timeIntervalSince1970: created),
            decidedAt: decided.map(Date.init(timeIntervalSince1970:)), decidedBy: by.map { LedgerActor(rawValue: $0) },
            comment: comment)
    }

    private func requests(
        _ query: PostgresQuery, on connection: PostgresConnection? = nil
    ) async throws
        -> [CorrectionRequestRecord]
    {
        let rows =
            if let connection {
                try await connection.query(query, logger: logger)
            } else {
                try await client.query(query, logger: logger)
            }
        var found: [CorrectionRequestRecord] = []
        for try await row in rows.decode(RequestRow.self) { found.append(try Self.request(row)) }
        return found
    }

    public func fileRequest(_ request: CorrectionRequestRecord, actor: LedgerActor) async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await self.append(request.filedEvent(actor: actor), on: connection)
            try await connection.query(
                """
                INSERT INTO correction_requests (id, user_id, kind, state, session_key, site_id, check_in_at,
                                                 check_out_at, reason, evidence, created_at)
                VALUES (\(request.id), \(request.userId.rawValue), \(request.kind.rawValue), \(request.state.rawValue),
                        \(request.sessionKey?.rawValue), \(request.siteId?.rawValue),
                        \(request.checkInAt?.timeIntervalSince1970), \(request.checkOutAt?.timeIntervalSince1970),
                        \(request.reason), \(RequestJSON.encode(request.evidence)),
                        \(request.createdAt.timeIntervalSince1970))
                """, logger: self.logger)
        }
    }

    public func requests(
        userId: UserID?, state: CorrectionRequestRecord.State?
    ) async throws
        -> [CorrectionRequestRecord]
    {
        var conditions: [String] = []
        var bindings = PostgresBindings()
        if let userId {
            try bindings.append(userId.rawValue)
            conditions.append("user_id = $\(bindings.count)")
        }
        if let state {
            try bindings.append(state.rawValue)
            conditions.append("state = $\(bindings.count)")
        }
        let sql =
            "SELECT \(Self.requestColumns) FROM correction_requests"
            + (conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND "))
            + " ORDER BY created_at DESC, id DESC LIMIT 500"
        return try await requests(PostgresQuery(unsafeSQL: sql, binds: bindings))
    }

    public func request(id: String) async throws -> CorrectionRequestRecord? {
        let select = "SELECT \(Self.requestColumns) FROM correction_requests WHERE id = $1"
        return try await requests(PostgresQuery(unsafeSQL: select, binds: try binds(id))).first
    }

    public func decideRequest(
        id: String, approve: Bool, comment: String?, actor: LedgerActor, now: Date
    ) async throws
        -> RequestDecisionOutcome
    {
        let select = "SELECT \(Self.requestColumns) FROM correction_requests WHERE id = $1"
        // The session an approval changes is locked first, as every session writer does.
        let first = try await requests(PostgresQuery(unsafeSQL: select, binds: try binds(id))).first
        let key = first.flatMap { $0.kind == .correction ? $0.sessionKey : $0.addedSession?.sessionKey }
        return try await transaction(locking: key.map { [$0] } ?? []) { connection in
            let found = try await self.requests(
                PostgresQuery(unsafeSQL: select + " FOR UPDATE", binds: try binds(id)), on: connection
            ).first
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
                        try await self.correct(key, correction, actor: actor, requestId: id, now: now, on: connection)
                    case .add(let added):
                        try await self.add(added, actor: actor, requestId: id, now: now, on: connection)
                    }
                guard case .applied(let session) = outcome else { return .correctionRefused(outcome) }
                decided.sessionKey = session.sessionKey
            }
            try await self.append(decided.decidedEvent(), on: connection)
            try await connection.query(
                """
                UPDATE correction_requests SET state = \(decided.state.rawValue),
                    session_key = \(decided.sessionKey?.rawValue), decided_at = \(now.timeIntervalSince1970),
                    decided_by = \(actor.rawValue), comment = \(comment)
                WHERE id = \(id)
                """, logger: self.logger)
            return .decided(decided)
        }
    }

    public func eraseEmployee(
        id: UserID, pseudonym: String, actor: LedgerActor, now: Date
    ) async throws
        -> EmployeeRecord?
    {
        try await client.withTransaction(logger: logger) { connection in
            let select = PostgresQuery(
                unsafeSQL: "SELECT \(Self.employeeColumns) FROM employees WHERE id = $1 FOR UPDATE",
                binds: try binds(id.rawValue))
            guard let employee = try await self.employees(select, on: connection).first else { return nil }
            guard !employee.isActive else { return employee }
            try await connection.query(
                "UPDATE employees SET name = \(pseudonym), email = NULL, external_id = NULL WHERE id = \(id.rawValue)",
                logger: self.logger)
            try await connection.query(
                "UPDATE ledger_events SET personal = NULL WHERE user_id = \(id.rawValue) AND personal IS NOT NULL",
                logger: self.logger)
            // Leave days (their type and note can be health data) go with the person.
            try await connection.query(
                "DELETE FROM timesheet_settings WHERE kind = 'leave' AND user_id = \(id.rawValue)", logger: self.logger)
            try await self.append(LedgerEvent.erased(id, actor: actor, now: now), on: connection)
            let reread = PostgresQuery(
                unsafeSQL: "SELECT \(Self.employeeColumns) FROM employees WHERE id = $1", binds: try binds(id.rawValue))
            return try await self.employees(reread, on: connection).first
        }
    }
}
