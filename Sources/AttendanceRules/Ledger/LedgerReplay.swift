import AttendanceModels
import Foundation

/// Sessions derived from the ledger (`attendance ledger rebuild`): every row, in the order it was
/// written, through the same `SessionLedger` rules the live server applies. What it ends with is
/// what the sessions table must hold.
public struct LedgerReplay: Sendable {
    /// A check-out or heartbeat still waiting for (or kept beside) its session.
    public struct PendingRow: Hashable, Sendable {
        public var sessionKey: SessionKey
        public var event: SessionLedger.PendingEvent
        public var receivedAt: Date
    }

    public private(set) var sessions: [SessionKey: SessionRecord] = [:]
    /// When each session's first row was received (the sessions table's `createdAt`).
    public private(set) var createdAt: [SessionKey: Date] = [:]
    public private(set) var pending: [SessionKey: [PendingRow]] = [:]
    public private(set) var rows = 0

    public init() {}

    /// One row, in ledger order, read strictly (a row this release can't read stops the rebuild,
    /// naming it). Rows that don't change sessions (audit) are counted and passed.
    public mutating func apply(_ event: LedgerEvent) throws {
        rows += 1
        let content = try event.record()
        guard let key = event.sessionKey else { return }
        switch content {
        case .checkIn(let checkIn):
            let command = try event.checkInCommand(checkIn)
            let waiting = pending[key] ?? []
            let decision = SessionLedger.checkIn(
                command, known: sessions[key], siteIsActive: true, employeeIsActive: true,
                pending: waiting.map(\.event), now: event.receivedAt)
            if case .record(let session, let applied) = decision {
                record(session, createdAt: event.receivedAt)
                let taken = Set(applied)
                pending[key] = waiting.filter { !taken.contains($0.event.id) }
            }
        case .checkOut(let sessionEvent), .heartbeat(let sessionEvent):
            let command = try event.sessionEventCommand(sessionEvent)
            switch SessionLedger.apply(command, to: sessions[key]) {
            case .storePending:
                let row = SessionLedger.PendingEvent(
                    id: event.id, kind: command.kind, at: command.at, reason: command.reason, userId: command.userId,
                    source: command.source)
                pending[key, default: []].append(PendingRow(sessionKey: key, event: row, receivedAt: event.receivedAt))
            case .update(let session): sessions[key] = session
            case .answer: break
            }
        case .sessionCorrected(let change):
            let correction = SessionCorrection(
                checkInAt: change.checkInAt, checkOutAt: change.checkOutAt, siteId: change.siteId,
                reason: change.reason,
                closingReason: change.closingReason ?? SessionCorrection.corrected)
            apply(SessionLedger.correct(correction, of: sessions[key], key: key), receivedAt: event.receivedAt)
        case .sessionAdded(let change):
            guard let userId = event.userId, let siteId = change.siteId, let checkInAt = change.checkInAt else {
                throw LedgerReadError(id: event.id, expected: "an added session with its employee, site and check-in")
            }
            let added = AddedSession(
                sessionKey: key, userId: userId, siteId: siteId, checkInAt: checkInAt, checkOutAt: change.checkOutAt,
                reason: change.reason)
            apply(SessionLedger.add(added, existing: sessions[key]), receivedAt: event.receivedAt)
        case .sessionVoided(let change):
            apply(
                SessionLedger.void(sessions[key], key: key, reason: change.reason, at: event.receivedAt),
                receivedAt: event.receivedAt)
        case .requestFiled, .requestApproved, .requestRejected, .audit:
            break
        }
    }

    private mutating func apply(_ decision: SessionLedger.ChangeDecision, receivedAt: Date) {
        guard case .write(let session, _) = decision else { return }
        record(session, createdAt: receivedAt)
    }

    private mutating func record(_ session: SessionRecord, createdAt time: Date) {
        if sessions[session.sessionKey] == nil { createdAt[session.sessionKey] = time }
        sessions[session.sessionKey] = session
    }

    /// Every pending row, oldest first.
    public var pendingRows: [PendingRow] {
        pending.values.flatMap { $0 }.sorted { $0.event.id < $1.event.id }
    }

    /// How the derived sessions differ from `stored` (what the sessions table holds): the keys of
    /// sessions that are missing, extra or different, sorted.
    public func differences(from stored: [SessionRecord]) -> [SessionKey] {
        var differing: Set<SessionKey> = []
        var seen: Set<SessionKey> = []
        for session in stored {
            seen.insert(session.sessionKey)
            if sessions[session.sessionKey] != session { differing.insert(session.sessionKey) }
        }
        for key in sessions.keys where !seen.contains(key) { differing.insert(key) }
        return differing.sorted { $0.rawValue < $1.rawValue }
    }
}
