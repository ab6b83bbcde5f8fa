import AttendanceModels
import Foundation

/// Which ledger rows a server process has passed on to its live pages, so that it can follow the
/// rows every process on the same database commits (`PresenceFollower`). Pure: rows in, the
/// session keys to show again out.
///
/// PostgreSQL hands out a row's id when it is inserted and the row is seen when its transaction
/// commits, a moment later: a row can appear below ids already seen. So the reads start after
/// `floor`, the highest id seen at least `lateCommitSeconds` ago, and the ids above it already
/// passed on are remembered and skipped. A row that commits more than `lateCommitSeconds` after a
/// higher id was seen is not passed on (the page shows it at its next load).
public struct LedgerTail: Sendable {
    /// How late a row may commit after a higher id was seen (a transaction's ledger row is written
    /// by its last statement before COMMIT, so milliseconds in practice).
    public static let lateCommitSeconds: Double = 2

    /// The next read asks for the rows after this id.
    public private(set) var floor: Int64
    /// Ids above `floor` already passed on, with when each was first seen.
    private var seen: [Int64: Date] = [:]

    public init(after floor: Int64) {
        self.floor = floor
    }

    /// The rows a read after `floor` returned: the session keys of those not passed on before, in
    /// the order of their first new row, each once. Moves `floor` up past the rows seen long enough.
    public mutating func received(_ rows: [(id: Int64, sessionKey: SessionKey?)], now: Date) -> [SessionKey] {
        var keys: [SessionKey] = []
        var added: Set<SessionKey> = []
        for row in rows where row.id > floor && seen[row.id] == nil {
            seen[row.id] = now
            if let key = row.sessionKey, added.insert(key).inserted { keys.append(key) }
        }
        let settled = seen.filter { now.timeIntervalSince($0.value) >= Self.lateCommitSeconds }.keys.max()
        if let settled {
            floor = settled
            seen = seen.filter { $0.key > settled }
        }
        return keys
    }
}
