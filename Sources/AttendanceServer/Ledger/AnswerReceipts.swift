import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation
import Logging

/// Finds the receipts for the rows a device's answered events are. A row committed a moment ago
/// isn't in the tree yet: the service asks the sealer for a round (`seal`, shared with every
/// caller that asks meanwhile) and looks again, for at most `wait`; a row still outside the tree
/// then (the sealer failing, or another replica holding the sealing lock past the wait) gets no
/// receipt in the answer, and the phone fetches it later (`ReceiptService.receipts`). A receipt
/// never fails an answer: a failure to make one is logged and the answer goes without.
public struct AnswerReceipts: Sendable {
    let repository: any LedgerTreeRepository
    let recent: RecentTreeGrowths
    let seal: @Sendable () async throws -> Void
    let wait: Duration
    let logger: Logger

    /// `recent`: the growths this process's sealer made, looked in first; `seal`: one sealer round
    /// that begins after the call; `wait`: how long an answer may wait for its rows to be in the tree.
    public init(
        repository: any LedgerTreeRepository, recent: RecentTreeGrowths,
        seal: @escaping @Sendable () async throws -> Void,
        wait: Duration, logger: Logger
    ) {
        self.repository = repository
        self.recent = recent
        self.seal = seal
        self.wait = wait
        self.logger = logger
    }

    /// The receipts of `device`'s rows for these events, by event (an event with no row, or whose
    /// row isn't in the tree within the wait, is absent).
    public func receipts(device: DeviceID, events: [DeviceEventRef]) async -> [DeviceEventRef: AnswerReceipt] {
        guard !events.isEmpty else { return [:] }
        let actor = LedgerActor.device(device)
        do {
            // Usually the row is in the commit's growth or the round the answer asks for (or one
            // just before it), kept in memory; otherwise (another replica's round, a replay of an
            // older event) it is read.
            var found = kept(actor: actor, events: events)
            if found.count != events.count {
                try await seal()
                found.merge(kept(actor: actor, events: events.filter { found[$0] == nil })) { first, _ in first }
            }
            guard found.count < events.count else { return found }
            let read = try await find(actor: actor, events: events.filter { found[$0] == nil })
            return found.merging(read) { first, _ in first }
        } catch {
            logger.warning(
                "an answer goes without its ledger receipt", metadata: ["device": "\(device)", "error": "\(error)"])
            return [:]
        }
    }

    private func kept(actor: LedgerActor, events: [DeviceEventRef]) -> [DeviceEventRef: AnswerReceipt] {
        var found: [DeviceEventRef: AnswerReceipt] = [:]
        for event in events {
            if let receipt = recent.receipt(actor: actor, event: event) { found[event] = receipt }
        }
        return found
    }

    private func find(actor: LedgerActor, events: [DeviceEventRef]) async throws -> [DeviceEventRef: AnswerReceipt] {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        var rows = try await repository.deviceEventRows(actor: actor, events: events)
        var placed: [DeviceEventRef: Placed] = [:]
        var rounds = 0
        while true {
            let before = placed.count
            // By leaf: the first checkpoint holding a leaf holds every later leaf below its size.
            let sealed = rows.compactMap { ref, row in
                row.sequence.map { (ref: ref, event: row.event, leaf: $0 - 1) }
            }.filter { placed[$0.ref] == nil }.sorted { $0.leaf < $1.leaf }
            var last: StoredCheckpoint?
            for row in sealed {
                if last.map({ row.leaf >= $0.checkpoint.size }) ?? true {
                    last = try await repository.firstCheckpoint(holding: row.leaf)
                }
                guard let checkpoint = last else { break }
                placed[row.ref] = Placed(event: row.event, leaf: row.leaf, checkpoint: checkpoint)
            }
            let waiting = events.filter { placed[$0] == nil && rows[$0] != nil }
            guard !waiting.isEmpty else { break }
            guard clock.now < deadline else {
                logger.notice(
                    "answered without a receipt: the row is not in the ledger's tree after the receipt wait",
                    metadata: ["rows": "\(waiting.compactMap { rows[$0]?.event.id })", "wait": "\(wait)"])
                break
            }
            // A round of ours placed nothing: another replica holds the sealing lock, and its
            // round (or ours, when the lock is free) places the rows soon.
            if rounds > 0, placed.count == before { try await Task.sleep(for: .milliseconds(20)) }
            try await seal()
            rounds += 1
            rows.merge(try await repository.deviceEventRows(actor: actor, events: waiting)) { $1 }
        }
        return try await proved(placed)
    }

    private struct Placed {
        var event: LedgerEvent
        var leaf: Int64
        var checkpoint: StoredCheckpoint
    }

    /// Each placed row's inclusion proof in its checkpoint, the proofs of one checkpoint read at once.
    private func proved(_ placed: [DeviceEventRef: Placed]) async throws -> [DeviceEventRef: AnswerReceipt] {
        let proofs = LedgerProofService(repository: repository)
        var receipts: [DeviceEventRef: AnswerReceipt] = [:]
        for group in Dictionary(grouping: placed, by: { $0.value.checkpoint.checkpoint.size }).values {
            let hashes = try await proofs.inclusions(
                of: group.map(\.value.leaf), size: group[0].value.checkpoint.checkpoint.size)
            for ((ref, row), proof) in zip(group, hashes) {
                receipts[ref] = AnswerReceipt(
                    receipt: LedgerReceipt(of: row.event, leaf: row.leaf, proof: proof), checkpoint: row.checkpoint.note
                )
            }
        }
        return receipts
    }
}
