import Foundation

/// The delivery port: sends outbox entries (oldest first, FIFO per session) and says what became
/// of each. Implementations never throw: every failure is an outcome.
public protocol Uploader: Sendable {
    func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome]
}
