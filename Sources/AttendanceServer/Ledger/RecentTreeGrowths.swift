import AttendanceModels
import AttendanceRules
import Foundation
import Synchronization

/// The last growths of the ledger's tree this process made (`LedgerSealer`), kept in memory so an
/// answer finds its row's receipt without a read: the row by its device event, its leaf, the
/// checkpoint that first holds it and its proof from the growth's nodes. Keeps at most `rows` rows
/// (the oldest growths go first); what isn't here is read from the database (`AnswerReceipts`).
public final class RecentTreeGrowths: Sendable {
    private struct Key: Hashable {
        var actor: String
        var sessionKey: String
        var kind: String
        /// The device's time in whole milliseconds, as it reads back from either database.
        var milliseconds: Int64

        init(actor: String, sessionKey: String, kind: String, at: Date) {
            self.actor = actor
            self.sessionKey = sessionKey
            self.kind = kind
            self.milliseconds = Int64((at.timeIntervalSince1970 * 1_000).rounded())
        }
    }

    private struct State {
        /// By number, one after another from `oldest` to `next - 1`: the oldest is dropped without
        /// moving the others (an array's `removeFirst` moved every growth kept, at each commit).
        var growths: [Int: LedgerTreeGrowth] = [:]
        var oldest = 0
        var next = 0
        var rows = 0
        /// Each device event's row: its growth's number and its place in it.
        var index: [Key: (growth: Int, row: Int)] = [:]
    }

    private let state = Mutex(State())
    private let limit: Int

    public init(rows limit: Int = 20_000) {
        self.limit = limit
    }

    public func add(_ growth: LedgerTreeGrowth) {
        state.withLock { state in
            let number = state.next
            state.next += 1
            for (place, event) in growth.rows.enumerated() {
                guard let key = Self.key(of: event) else { continue }
                state.index[key] = (number, place)
            }
            state.growths[number] = growth
            state.rows += growth.rows.count
            while state.rows > limit, state.oldest < number {
                let oldest = state.oldest
                state.oldest += 1
                guard let removed = state.growths.removeValue(forKey: oldest) else { continue }
                state.rows -= removed.rows.count
                for event in removed.rows {
                    guard let key = Self.key(of: event), state.index[key]?.growth == oldest else { continue }
                    state.index[key] = nil
                }
            }
        }
    }

    /// The receipt of `actor`'s row for `event`, if a growth kept here appended it.
    public func receipt(actor: LedgerActor, event: DeviceEventRef) -> AnswerReceipt? {
        let key = Key(
            actor: actor.rawValue, sessionKey: event.sessionKey.rawValue, kind: event.kind.rawValue, at: event.at)
        let found: (growth: LedgerTreeGrowth, row: Int)? = state.withLock { state in
            guard let place = state.index[key], let growth = state.growths[place.growth] else { return nil }
            return (growth, place.row)
        }
        guard let (growth, row) = found else { return nil }
        let leaf = growth.from + Int64(row)
        let ranges = MerkleTree.inclusionRanges(index: leaf, size: growth.checkpoint.checkpoint.size)
        let proof = ranges.compactMap { MerkleTree.hash(of: $0, from: growth.nodes) }
        guard proof.count == ranges.count else { return nil }
        return AnswerReceipt(
            receipt: LedgerReceipt(of: growth.rows[row], leaf: leaf, proof: proof), checkpoint: growth.checkpoint.note)
    }

    private static func key(of event: LedgerEvent) -> Key? {
        guard let sessionKey = event.sessionKey, let at = event.deviceAt else { return nil }
        return Key(actor: event.actor.rawValue, sessionKey: sessionKey.rawValue, kind: event.kind.rawValue, at: at)
    }
}
