import Foundation

public enum CanonicalJSON {
    /// Sorted keys: the same value always encodes to the same bytes (a default `JSONEncoder`'s key
    /// order is not stable on Linux). Stored payloads, request bodies and exports use it.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
}
