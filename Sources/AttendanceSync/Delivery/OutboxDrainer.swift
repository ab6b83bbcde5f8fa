import AttendanceEngine
import AttendanceModels
import Foundation

/// Sends what is due in the outbox and books each outcome: delivered, retried with backoff, or
/// dead-lettered with the server's reason. One drain runs at a time; a drain asked for while one
/// runs makes that one go round again.
public actor OutboxDrainer {
    public let store: DeviceStore
    private let uploader: any Uploader
    private let policy: RetryPolicy
    private let clock: any AttendanceClock
    private var random: SplitMix64
    private let batchSize: Int
    private var running = false
    private var requestedAgain = false
    private let timeLeft: @Sendable () -> Double?
    public let secondsPerRequest: Double
    /// Whether the last drain stopped because too little background time was left.
    public private(set) var stoppedForTime = false

    /// `timeLeft`: the execution time the app still has (nil: not limited); no request starts
    /// with less than `secondsPerRequest` left (the phone's request timeout and a margin), so a
    /// suspension never freezes one mid-way: the rest waits for the next wake.
    public init(store: DeviceStore, uploader: any Uploader, clock: any AttendanceClock, policy: RetryPolicy = RetryPolicy(),
                jitterSeed: UInt64 = UInt64.random(in: .min ... .max), batchSize: Int = 50,
                timeLeft: @escaping @Sendable () -> Double? = { nil }, secondsPerRequest: Double = 5) {
        self.store = store
        self.uploader = uploader
        self.clock = clock
        self.policy = policy
        self.random = SplitMix64(seed: jitterSeed)
        self.batchSize = batchSize
        self.timeLeft = timeLeft
        self.secondsPerRequest = secondsPerRequest
    }

    /// Drains until nothing is due; returns `nil` when another drain was running (it will pick
    /// up whatever this call would have sent). Heartbeats younger than `heartbeatHoldSeconds`
    /// go only with other traffic (`DeviceStore.nextBatch`).
    public func drain(heartbeatHoldSeconds: Double = 0) async throws -> UploadReport? {
        if running {
            requestedAgain = true
            return nil
        }
        running = true
        defer { running = false }
        stoppedForTime = false
        var delivered = 0
        var lastError: String?
        repeat {
            requestedAgain = false
            // Time is read once per round, so an event retried in this round waits for a later one.
            let roundStart = clock.now()
            while true {
                let batch = try store.nextBatch(now: roundStart, limit: batchSize,
                                                heartbeatHoldSeconds: heartbeatHoldSeconds)
                if batch.isEmpty { break }
                if let left = timeLeft(), left < secondsPerRequest {
                    lastError = String(format: "%.1f s of background time left, less than a request may take (%.0f s); ", left,
                                       secondsPerRequest) + "the rest is sent at the next wake"
                    requestedAgain = false
                    stoppedForTime = true
                    break
                }
                try store.markInFlight(batch.map(\.id))
                let outcomes = await uploader.upload(batch)
                let answeredAt = clock.now()
                var deliveredIDs: [Int64] = []
                var receipts: [AnswerReceipt] = []
                for entry in batch {
                    switch outcomes[entry.id] ?? .retry(reason: "the uploader gave no outcome", transport: false, retryAfterSeconds: nil) {
                    case .delivered(_, let receipt):
                        deliveredIDs.append(entry.id)
                        receipts += receipt.map { [$0] } ?? []
                    case .retry(let reason, let transport, let retryAfter):
                        let delay = policy.delay(afterAttempts: entry.attempts + 1, retryAfterSeconds: retryAfter, using: &random)
                        try store.markRetry(entry.id, error: reason, transport: transport, nextAttemptAt: answeredAt.addingTimeInterval(delay))
                        lastError = reason
                    case .serverBusy(let reason, let retryAfter):
                        let delay = policy.delay(
                            afterAttempts: entry.attempts + 1, retryAfterSeconds: retryAfter, using: &random)
                        try store.markServerBusy(
                            entry.id, error: reason, nextAttemptAt: answeredAt.addingTimeInterval(delay), at: answeredAt
                        )
                        lastError = reason
                    case .rejected(let status, let detail):
                        try store.markDead(entry.id, reason: "HTTP \(status): \(detail)", at: answeredAt)
                        lastError = "dead letter: HTTP \(status): \(detail)"
                    }
                }
                try store.markDelivered(deliveredIDs, at: answeredAt)
                try store.keepAnswerReceipts(receipts, at: answeredAt)
                delivered += deliveredIDs.count
            }
        } while requestedAgain
        let counts = try store.counts()
        return UploadReport(at: clock.now(), delivered: delivered, pending: counts.undelivered, deadLetters: counts.dead, error: lastError)
    }
}
