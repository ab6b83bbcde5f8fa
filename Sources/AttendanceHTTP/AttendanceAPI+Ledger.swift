import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import OpenAPIRuntime

/// Corrections, added and voided sessions, a session's history, the audit log, and erasure.
extension AttendanceAPI {
    func getSession(_ input: Operations.GetSession.Input) async throws -> Operations.GetSession.Output {
        let session = try await corrections.session(
            SessionKey(input.path.sessionKey), scope: try Caller.current().siteScope)
        return .ok(.init(body: .json(Self.session(session))))
    }

    func getSessionHistory(
        _ input: Operations.GetSessionHistory.Input
    ) async throws
        -> Operations.GetSessionHistory.Output
    {
        let (session, entries) = try await corrections.history(
            SessionKey(input.path.sessionKey), scope: try Caller.current().siteScope)
        return .ok(.init(body: .json(.init(session: Self.session(session), entries: try entries.map(Self.entry)))))
    }

    func correctSession(_ input: Operations.CorrectSession.Input) async throws -> Operations.CorrectSession.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let session = try await corrections.correct(
            SessionKey(input.path.sessionKey), checkInAt: body.checkInAt, checkOutAt: body.checkOutAt,
            siteId: try body.siteId.map { try Self.id("siteId", $0) }, reason: body.reason, actor: try Caller.actor())
        return .ok(.init(body: .json(Self.session(session))))
    }

    func addSession(_ input: Operations.AddSession.Input) async throws -> Operations.AddSession.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let session = try await corrections.add(
            userId: try Self.id("userId", body.userId), siteId: try Self.id("siteId", body.siteId),
            checkInAt: body.checkInAt, checkOutAt: body.checkOutAt, reason: body.reason, actor: try Caller.actor(),
            idempotencyKey: input.headers.idempotencyKey)
        return .created(.init(body: .json(Self.session(session))))
    }

    func voidSession(_ input: Operations.VoidSession.Input) async throws -> Operations.VoidSession.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let session = try await corrections.void(
            SessionKey(input.path.sessionKey), reason: body.reason, actor: try Caller.actor())
        return .ok(.init(body: .json(Self.session(session))))
    }

    func listAudit(_ input: Operations.ListAudit.Input) async throws -> Operations.ListAudit.Output {
        let query = input.query
        let limit = query.limit ?? 100
        guard (1...500).contains(limit) else { throw DomainError.field("limit", String(limit), expected: "1 to 500") }
        var before: Int64?
        if let cursor = query.cursor {
            guard cursor.count <= 18, cursor.first != "0", let id = Int64(cursor), id > 0 else {
                throw DomainError.field(
                    "cursor", InputRules.shown(cursor), expected: "the nextCursor of a previous page")
            }
            before = id
        }
        if let actor = query.actor { try InputRules.identifier("actor", actor, maxLength: 160) }
        if let from = query.from, let to = query.to, from > to {
            throw DomainError.field("from", RFC3339.format(from), expected: "a time before 'to'", kind: .unprocessable)
        }
        let filter = LedgerFilter(
            from: query.from, to: query.to, actor: query.actor.map { LedgerActor(rawValue: $0) },
            sessionKey: try query.sessionKey.map { key in
                try InputRules.identifier("sessionKey", key)
                return SessionKey(key)
            },
            userId: try query.userId.map { try Self.id("userId", $0) })
        let rows = try await repository.ledgerEvents(filter, before: before, limit: limit + 1)
        let page = Array(rows.prefix(limit))
        let next = rows.count > limit ? page.last.map { String($0.id) } : nil
        return .ok(.init(body: .json(.init(items: try page.map(Self.entry), nextCursor: next))))
    }

    func eraseEmployee(_ input: Operations.EraseEmployee.Input) async throws -> Operations.EraseEmployee.Output {
        let employee = try await admin.eraseEmployee(
            id: try Self.id("userId", input.path.userId), actor: try Caller.actor())
        return .ok(.init(body: .json(Self.employee(employee))))
    }
}
