import Foundation

/// Failed sign-ins, per account and per network address, with exponential backoff: the first
/// `freeFailures` failures cost nothing, then each further one doubles the wait (1 s, 2 s, 4 s …,
/// at most `maxWait`). A success clears the account's count (not the address's: one correct
/// password must not reset a guesser working through many accounts). Pure: the storage keeps the
/// entries in the database (`sign_in_failures`), so every server on one database counts together.
public struct SignInThrottle: Sendable {
    public struct Policy: Hashable, Sendable {
        public var freeFailuresPerAccount = 5
        public var freeFailuresPerAddress = 20
        public var maxWait: TimeInterval = 900
        /// A key with no failure for this long is forgotten.
        public var forgetAfter: TimeInterval = 3_600

        public init() {}
    }

    public enum Decision: Hashable, Sendable {
        case allowed
        /// Refused until then, because of the account's or the address's failures.
        case wait(until: Date, becauseOf: Key)
    }

    public enum Key: Hashable, Sendable {
        case account(String)
        case address(String)

        /// The key as stored: `account:<e-mail, lower case>` or `address:<address>`.
        public var name: String {
            switch self {
            case .account(let email): "account:" + email
            case .address(let address): "address:" + address
            }
        }

        /// The two keys an attempt counts against.
        public static func of(email: String, address: String) -> [Key] {
            [.account(email.lowercased()), .address(address)]
        }
    }

    public struct Entry: Hashable, Sendable {
        public var failures: Int
        public var lastFailure: Date

        public init(failures: Int, lastFailure: Date) {
            self.failures = failures
            self.lastFailure = lastFailure
        }
    }

    public let policy: Policy
    public private(set) var entries: [Key: Entry] = [:]

    /// The throttle as it stands: `entries` are the keys' stored counts (the ones an attempt reads).
    public init(policy: Policy = Policy(), entries: [Key: Entry] = [:]) {
        self.policy = policy
        self.entries = entries
    }

    /// Whether a sign-in for `email` from `address` may be tried at `now`.
    public func check(email: String, address: String, now: Date) -> Decision {
        for key in Key.of(email: email, address: address) {
            if let until = blockedUntil(key), until > now { return .wait(until: until, becauseOf: key) }
        }
        return .allowed
    }

    public mutating func recordFailure(email: String, address: String, now: Date) {
        forgetOld(now: now)
        for key in Key.of(email: email, address: address) {
            var entry = entries[key] ?? Entry(failures: 0, lastFailure: now)
            if now.timeIntervalSince(entry.lastFailure) >= policy.forgetAfter { entry.failures = 0 }
            entry.failures += 1
            entry.lastFailure = now
            entries[key] = entry
        }
    }

    public mutating func recordSuccess(email: String) {
        entries[.account(email.lowercased())] = nil
    }

    /// Checks and counts an attempt as a failure in one step, so concurrent attempts can't all
    /// pass the check before any is counted; `succeeded` takes the count back.
    public mutating func begin(email: String, address: String, now: Date) -> Decision {
        let decision = check(email: email, address: address, now: now)
        if decision == .allowed { recordFailure(email: email, address: address, now: now) }
        return decision
    }

    /// An attempt `begin` counted was right: the account's failures are cleared, and the
    /// address's count goes back by the one `begin` added.
    public mutating func succeeded(email: String, address: String) {
        recordSuccess(email: email)
        if var entry = entries[.address(address)] {
            entry.failures -= 1
            entries[.address(address)] = entry.failures > 0 ? entry : nil
        }
    }

    /// How many keys are remembered (bounded by `forgetAfter`).
    public var count: Int { entries.count }

    private func blockedUntil(_ key: Key) -> Date? {
        guard let entry = entries[key] else { return nil }
        let free: Int
        switch key {
        case .account: free = policy.freeFailuresPerAccount
        case .address: free = policy.freeFailuresPerAddress
        }
        let over = entry.failures - free
        guard over >= 0 else { return nil }
        let wait = min(policy.maxWait, pow(2, Double(min(over, 30))))
        return entry.lastFailure.addingTimeInterval(wait)
    }

    private mutating func forgetOld(now: Date) {
        guard entries.count > 1_000 else { return }
        entries = entries.filter { now.timeIntervalSince($0.value.lastFailure) < policy.forgetAfter }
    }
}
