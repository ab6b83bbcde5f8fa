import Foundation

/// A text for a person, not yet in their language: a String Catalog key (the English text, with
/// `%@` where a value goes and `%lld` where a count goes) and its values in order. The engine and
/// the app's core make these; the Apple adapters and the screens resolve them in the phone's
/// language (`resolved(by:)` with the app bundle's catalogue), so what decides stays free of the
/// platform and the English text is only ever the key.
public struct LocalizedText: Hashable, Sendable, Codable, CustomStringConvertible {
    public indirect enum Value: Hashable, Sendable, Codable {
        /// Another text, resolved in the same language first.
        case text(LocalizedText)
        /// Shown as it is: a site's name, a time already formatted for the locale, a reason.
        case verbatim(String)
        case count(Int)
    }

    public var key: String
    public var values: [Value]

    public init(_ key: String, _ values: Value...) {
        self.key = key
        self.values = values
    }

    public init(_ key: String, values: [Value]) {
        self.key = key
        self.values = values
    }

    /// A text shown as it is, in every language (a name, an error from the server).
    public static func verbatim(_ text: String) -> LocalizedText { LocalizedText("%@", .verbatim(text)) }

    /// "A, B, C" (or "A; B; C"): the texts in order, each resolved in the same language.
    public static func list(_ texts: [LocalizedText], separator: String = ", ") -> LocalizedText {
        guard let first = texts.first else { return .verbatim("") }
        guard texts.count > 1 else { return first }
        return LocalizedText(
            "%@" + separator + "%@", .text(first), .text(list(Array(texts.dropFirst()), separator: separator)))
    }

    /// The text in one language: `lookup` gives the catalogue's value for a key (nil: the key
    /// itself, which is the English text); values go in its specifiers.
    public func resolved(by lookup: (String) -> String?) -> String {
        let strings = values.map { value -> String in
            switch value {
            case .text(let text): text.resolved(by: lookup)
            case .verbatim(let string): string
            case .count(let count): String(count)
            }
        }
        return Self.fill(lookup(key) ?? key, strings)
    }

    /// The English text (the keys themselves), for logs and tests.
    public var english: String { resolved { _ in nil } }

    public var description: String { english }

    /// `format` with its specifiers replaced: `%@`, `%lld`, `%ld` and `%d` take the next value,
    /// `%2$@` the second; `%%` is a percent sign; a specifier without a value becomes empty.
    public static func fill(_ format: String, _ values: [String]) -> String {
        guard format.contains("%") else { return format }
        var result = ""
        var next = 0
        var rest = Substring(format)
        while let percent = rest.firstIndex(of: "%") {
            result += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            if rest.first == "%" {
                result += "%"
                rest = rest.dropFirst()
                continue
            }
            var position: Int?
            let digits = rest.prefix { $0.isNumber }
            if !digits.isEmpty, rest.dropFirst(digits.count).first == "$" {
                position = Int(digits)
                rest = rest.dropFirst(digits.count + 1)
            }
            guard let specifier = ["@", "lld", "ld", "d"].first(where: { rest.hasPrefix($0) }) else {
                result += "%"
                continue
            }
            rest = rest.dropFirst(specifier.count)
            let index = position.map { $0 - 1 } ?? next
            next += 1
            result += values.indices.contains(index) ? values[index] : ""
        }
        return result + rest
    }
}
