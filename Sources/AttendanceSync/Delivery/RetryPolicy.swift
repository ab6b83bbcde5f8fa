import Foundation

/// Exponential backoff with full jitter (AWS Architecture Blog, "Exponential Backoff and
/// Jitter"): the delay before attempt n+1 is uniform in [min, min(cap, base · 2^(n−1))], and never
/// shorter than the server's `Retry-After`.
public struct RetryPolicy: Hashable, Sendable {
    public var baseDelaySeconds: Double
    public var maxDelaySeconds: Double
    /// Keeps a drain from retrying an event within itself.
    public var minDelaySeconds: Double

    /// 2 s doubling to at most 10 min. At the cap, full jitter waits 300 s on average, so a day
    /// offline costs about 290 attempts per waiting session head; the network coming back resets
    /// transport backoff anyway.
    public init(baseDelaySeconds: Double = 2, maxDelaySeconds: Double = 600, minDelaySeconds: Double = 1) {
        self.baseDelaySeconds = baseDelaySeconds
        self.maxDelaySeconds = maxDelaySeconds
        self.minDelaySeconds = minDelaySeconds
    }

    /// The delay after the `attempts`-th failed attempt (1 for the first failure).
    public func delay<R: RandomNumberGenerator>(afterAttempts attempts: Int, retryAfterSeconds: Double?, using random: inout R) -> Double {
        let exponent = Double(max(0, min(attempts - 1, 30)))
        let ceiling = min(maxDelaySeconds, baseDelaySeconds * pow(2, exponent))
        let jittered = Double.random(in: 0...max(ceiling, minDelaySeconds), using: &random)
        return max(minDelaySeconds, jittered, retryAfterSeconds ?? 0)
    }
}
