import Foundation

public enum CanonicalJSON {
    /// Sorted keys: the same value always encodes to the same bytes (a default `JSONEncoder`'s key
    /// order is not stable on Linux). Stored payloads, request bodies and exports use it.
    public static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    /// The contract's JSON as the generated OpenAPI code writes it on both sides (sorted keys, no
    /// escaped slashes, times as `RFC3339.format` writes them): the bytes the server stores as an
    /// answer and hashes as a request's identity, and the bytes the phone stages for upload.
    public static let wireEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(RFC3339.format(date))
        }
        return encoder
    }()
}
