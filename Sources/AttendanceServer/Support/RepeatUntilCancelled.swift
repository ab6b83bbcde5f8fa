import Logging

/// Runs `step`, then waits `interval`, until the task is cancelled (a background service's loop).
/// A step that fails is tried again at the next interval, and an outage is logged once: `failure`
/// with the error when the failures start, `recovery` when a step succeeds again.
public func repeatUntilCancelled(
    every interval: Duration, logger: Logger, failure: Logger.Message, recovery: Logger.Message? = nil,
    _ step: () async throws -> Void
) async throws {
    var failing = false
    while true {
        do {
            try await step()
            if failing, let recovery { logger.info(recovery) }
            failing = false
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if !failing { logger.error(failure, metadata: ["error": "\(error)"]) }
            failing = true
        }
        try await Task.sleep(for: interval)
    }
}
