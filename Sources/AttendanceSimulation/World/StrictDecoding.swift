import Foundation

/// Any key, to list what a JSON object really holds.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Refuses keys the type does not know, naming the key, where it was, and what is allowed: a
    /// misspelt `"crashRat"` must not silently leave the default in place.
    func rejectUnknownKeys<Keys: CodingKey & CaseIterable>(_ known: Keys.Type) throws {
        let allowed = Set(Keys.allCases.map(\.stringValue))
        let container = try container(keyedBy: AnyCodingKey.self)
        for key in container.allKeys where !allowed.contains(key.stringValue) {
            let path = (codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath + [key],
                                                    debugDescription: "'\(path)' is not a known field; expected one of \(allowed.sorted().joined(separator: ", "))"))
        }
    }
}

extension KeyedDecodingContainer {
    /// The value when present, else `fallback` (the world's default for that field).
    func value<T: Decodable>(_ key: Key, or fallback: T) throws -> T { try decodeIfPresent(T.self, forKey: key) ?? fallback }
}

extension WorldSpec {
    /// A decoding error of a world file as one sentence naming the field and what was expected.
    public static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            return "'\(path(context.codingPath))' has the wrong type; expected \(type)"
        case .keyNotFound(let key, let context):
            return "'\(path(context.codingPath + [key]))' is missing; expected a value for this required field"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not valid JSON: \(context.debugDescription)" : context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}
