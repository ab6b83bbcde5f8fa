import AttendanceConsole
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation

/// The server's answers in the contract's generated types, encoded once by `Wire.encode`: what
/// `IngestService` stores under a key and replays as bytes, and every `Problem` the server sends.
struct ContractAnswers: IngestAnswers {
    func session(_ session: SessionRecord, created: Bool) throws -> StoredReply {
        StoredReply(
            status: created ? 201 : 200, contentType: "application/json", body: try Wire.encode(Self.session(session)))
    }

    func pending(sessionKey: SessionKey) throws -> StoredReply {
        let body = Components.Schemas.PendingEvent(sessionKey: sessionKey.rawValue, status: .awaitingCheckIn)
        return StoredReply(status: 202, contentType: "application/json", body: try Wire.encode(body))
    }

    func refusal(_ error: DomainError) -> StoredReply {
        Self.reply(Problem(error))
    }

    func batch(_ results: [(idempotencyKey: String, reply: StoredReply)]) throws -> StoredReply {
        let body = Components.Schemas.EventBatchResponse(
            results: results.map { key, reply in
                // A refusal's problem is read back from its stored bytes (a replayed item has only those).
                let problem =
                    reply.status >= 400 ? try? Wire.decode(Components.Schemas.Problem.self, from: reply.body) : nil
                return .init(idempotencyKey: key, status: reply.status, problem: problem)
            })
        return StoredReply(status: 200, contentType: "application/json", body: try Wire.encode(body))
    }

    /// `application/problem+json` (RFC 9457): the contract's `Problem`.
    static func reply(_ problem: Problem) -> StoredReply {
        let body = Components.Schemas.Problem(
            _type: "about:blank", title: problem.title, status: problem.status, detail: problem.detail)
        // Four strings and an integer always encode; an empty body would still carry the status.
        return StoredReply(
            status: problem.status, contentType: "application/problem+json", body: (try? Wire.encode(body)) ?? Data())
    }

    /// A session as the contract's `Session`: the same value in a check-in's answer and in reports.
    static func session(_ session: SessionRecord) -> Components.Schemas.Session {
        let evidence = session.evidence
        return .init(
            sessionKey: session.sessionKey.rawValue, userId: session.userId.rawValue, siteId: session.siteId.rawValue,
            checkInAt: session.checkInAt, checkOutAt: session.checkOutAt, checkOutReason: session.checkOutReason,
            lastSeenAt: session.lastSeenAt,
            // `SessionRecord.status` is one of the contract's three (open, closed, voided).
            status: .init(rawValue: session.status) ?? .open,
            source: session.source == .manual ? .manual : .automatic,
            // Present only when set, so that an uncorrected session's answer is the bytes it always was.
            corrected: session.corrected ? true : nil, voidedAt: session.voidedAt, voidReason: session.voidReason,
            clockSkewSeconds: evidence.clockSkewSeconds,
            workedSeconds: session.checkOutAt.map { Int($0.timeIntervalSince(session.checkInAt).rounded()) },
            deviceId: session.deviceId?.rawValue, checkInReason: evidence.checkInReason,
            checkOutSource: evidence.checkOutSource.map { $0 == .manual ? .manual : .automatic },
            appVersion: evidence.appVersion,
            evidence: evidence.rule.map { rule in
                .init(
                    rule: rule, sampleCount: evidence.sampleCount, medianRSSI: evidence.medianRSSI,
                    stdevDB: evidence.stdevDB, walking: evidence.walking)
            })
    }
}
