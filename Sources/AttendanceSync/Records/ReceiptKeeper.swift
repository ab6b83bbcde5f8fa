import AttendanceModels
import Foundation

/// A page of receipts as the server sent it (`RecordClient.receipts(after:)`).
public struct ReceiptPage: Sendable, Equatable {
    /// The note verifier key the server says it signs with (pinned by the phone on first use).
    public var logKey: String
    /// The signed checkpoint the receipts' proofs lead to.
    public var checkpoint: String
    public var receipts: [LedgerReceipt]
    public var nextAfter: Int64?

    public init(logKey: String, checkpoint: String, receipts: [LedgerReceipt], nextAfter: Int64?) {
        self.logKey = logKey
        self.checkpoint = checkpoint
        self.receipts = receipts
        self.nextAfter = nextAfter
    }
}

/// What the phone's receipts are for: the server's half, fetched and paged.
public protocol ReceiptSource: Sendable {
    func receipts(after: Int64) async throws(RecordError) -> ReceiptPage
    func consistency(from: Int64, to: Int64) async throws(RecordError) -> [MerkleTree.Hash]
    func reportLedgerWarning(_ problem: String, checkpoint: String?) async throws(RecordError)
}

extension RecordClient: ReceiptSource {}

/// Fetches the receipts for this phone's ledger rows, checks them (`ReceiptCheck`) and keeps them
/// in the device's database (LEDGER.md, "Receipts"). The server's key is pinned on the first page;
/// a checkpoint that doesn't verify, doesn't extend the last one, or a proof that fails is kept as
/// the phone's problem, shown in Diagnostics and reported to the server, and nothing of that page
/// is kept.
public struct ReceiptKeeper: Sendable {
    let store: DeviceStore
    let source: any ReceiptSource
    /// This phone's actor in the ledger (`device:<id>`).
    let actor: String

    public init(store: DeviceStore, source: any ReceiptSource, deviceID: DeviceID) {
        self.store = store
        self.source = source
        self.actor = "device:\(deviceID.rawValue)"
    }

    /// Checks every receipt the server holds for this phone past those it kept, then the receipts
    /// its events' answers carried against them; returns the state.
    public func refresh(now: Date) async throws -> LedgerReceiptState? {
        if let state = try store.ledgerReceiptState(), let problem = state.problem, !state.problemReported {
            try? await report(problem, checkpoint: nil)
        }
        let state = try await pages(now: now)
        guard let state, state.problem == nil else { return state }
        return try await checkAnswers(state, now: now)
    }

    /// The pages of receipts after the last kept, each checked and kept.
    private func pages(now: Date) async throws -> LedgerReceiptState? {
        while true {
            let state = try store.ledgerReceiptState()
            guard let page = try await page(after: state?.lastRowId ?? 0) else { return state }
            let pinned = state?.logKey ?? page.logKey
            if state == nil { try store.pinLedgerKey(pinned) }
            guard page.logKey == pinned else {
                return try await found(
                    "the server now signs with the key \(page.logKey.prefix(60)), not the one this phone pinned",
                    checkpoint: page.checkpoint, now: now)
            }
            let key = try NoteVerifier(encoded: pinned)
            let last = state?.checkpoint.flatMap { try? Checkpoint.open($0, verifier: key) }
            var outcome = ReceiptCheck.check(
                note: page.checkpoint, receipts: page.receipts, key: key, actor: actor, last: last, consistency: nil)
            var consistency: (from: Int64, proof: [MerkleTree.Hash])?
            if case .needConsistency(let from, let to) = outcome {
                let proof = try await source.consistency(from: from, to: to)
                consistency = (from, proof)
                outcome = ReceiptCheck.check(
                    note: page.checkpoint, receipts: page.receipts, key: key, actor: actor, last: last,
                    consistency: proof)
            }
            switch outcome {
            case .verified(let checkpoint):
                try store.keepReceipts(
                    page.receipts, checkpoint: page.checkpoint, size: checkpoint.size, consistency: consistency, at: now
                )
            case .tampered(let why):
                return try await found(why, checkpoint: page.checkpoint, now: now)
            case .needConsistency:
                return try await found(
                    "the server sent no usable consistency proof", checkpoint: page.checkpoint, now: now)
            }
            if page.nextAfter == nil || page.receipts.isEmpty { return try store.ledgerReceiptState() }
        }
    }

    /// The receipts the answers carried, by checkpoint: each checkpoint must be part of the log
    /// the pages showed (a consistency proof to the accepted checkpoint), and each row's page
    /// receipt the same entry; a confirmed one is dropped (its page receipt is kept), one whose
    /// checkpoint is newer or whose row the pages haven't reached waits for the next check.
    private func checkAnswers(_ state: LedgerReceiptState, now: Date) async throws -> LedgerReceiptState? {
        let answers = try store.answerReceipts()
        guard !answers.isEmpty, let note = state.checkpoint else { return state }
        let key = try NoteVerifier(encoded: state.logKey)
        guard let accepted = try? Checkpoint.open(note, verifier: key) else { return state }
        for (checkpoint, group) in Dictionary(grouping: answers, by: \.checkpoint).sorted(by: { $0.key < $1.key }) {
            let receipts = group.map(\.receipt)
            let kept = try store.keptEntries(receipts.map(\.rowId))
            var outcome = ReceiptCheck.answered(
                note: checkpoint, receipts: receipts, key: key, actor: actor, accepted: accepted, consistency: nil,
                kept: kept)
            if case .needConsistency(let from, let to) = outcome {
                outcome = ReceiptCheck.answered(
                    note: checkpoint, receipts: receipts, key: key, actor: actor, accepted: accepted,
                    consistency: try await source.consistency(from: from, to: to), kept: kept)
            }
            switch outcome {
            case .confirmed(let rows): try store.confirmAnswerReceipts(rows)
            case .later: continue
            case .needConsistency:
                return try await found("the server sent no usable consistency proof", checkpoint: checkpoint, now: now)
            case .tampered(let why): return try await found(why, checkpoint: checkpoint, now: now)
            }
        }
        return try store.ledgerReceiptState()
    }

    /// The page after `after`; nil before the server's first checkpoint (404).
    private func page(after: Int64) async throws -> ReceiptPage? {
        let result: Result<ReceiptPage, RecordError>
        do { result = .success(try await source.receipts(after: after)) } catch { result = .failure(error) }
        if case .failure(let error) = result, case .refused(let status, _) = error, status == 404 { return nil }
        return try result.get()
    }

    private func found(_ problem: String, checkpoint: String, now: Date) async throws -> LedgerReceiptState? {
        try store.recordLedgerProblem(problem, at: now)
        try? await report(problem, checkpoint: checkpoint)
        return try store.ledgerReceiptState()
    }

    private func report(_ problem: String, checkpoint: String?) async throws {
        try await source.reportLedgerWarning(problem, checkpoint: checkpoint)
        try store.markLedgerProblemReported()
    }
}
