import AttendanceModels
import AttendanceRules

/// An admin create's `Idempotency-Key` (the contract's `RetryKey`): the record it makes gets an id
/// derived from the caller and the key, so a retry finds what the first request made instead of
/// making another. Another caller's same key names another record.
enum RetryKey {
    /// `prefix` and 16 (or `length`) hex digits; nil without a key.
    static func id(_ prefix: String, _ key: String?, actor: LedgerActor, length: Int = 16) throws -> String? {
        guard let key else { return nil }
        try InputRules.identifier("Idempotency-Key", key)
        return prefix + SHA256.hex("\(actor.rawValue)\n\(prefix)\n\(key)").prefix(length)
    }
}
