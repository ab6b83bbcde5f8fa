import AttendanceRules
import Foundation

/// The console's languages. A page is in the account's choice, else the first language of the
/// browser's `Accept-Language` the console has, else English.
public enum Language: String, CaseIterable, Sendable {
    case english = "en"
    case german = "de"

    /// The language a request is answered in: the account's stored choice when it is one of ours,
    /// else the browser's.
    static func chosen(account choice: String?, acceptLanguage: String?) -> Language {
        if let choice, let language = Language(rawValue: choice) { return language }
        return acceptLanguage.flatMap(negotiate) ?? .english
    }

    /// The best of our languages in an `Accept-Language` header (RFC 9110, 12.5.4): ranges by
    /// weight, highest first (the order given breaks ties); `de-AT` takes German, `*` English.
    /// Nil when the header names none of ours.
    static func negotiate(_ header: String) -> Language? {
        var ranges: [(tag: String, weight: Double, order: Int)] = []
        for (order, part) in header.split(separator: ",").enumerated() {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first?.lowercased(), !tag.isEmpty else { continue }
            var weight = 1.0
            for parameter in pieces.dropFirst() where parameter.lowercased().hasPrefix("q=") {
                weight = Double(parameter.dropFirst(2)) ?? 0
            }
            if weight > 0 { ranges.append((tag, weight, order)) }
        }
        for range in ranges.sorted(by: { ($0.weight, -$0.order) > ($1.weight, -$1.order) }) {
            if range.tag == "*" { return .english }
            let primary = range.tag.split(separator: "-").first.map(String.init) ?? range.tag
            if let language = Language(rawValue: primary) { return language }
        }
        return nil
    }

    /// The language's own name, as a choice in a menu shows it.
    var name: String {
        switch self {
        case .english: "English"
        case .german: "Deutsch"
        }
    }

    // MARK: - Dates and numbers

    /// A day: `2026-11-25` in English (the unambiguous form), `25.11.2026` in German.
    func date(_ day: LocalDate) -> String {
        switch self {
        case .english: return day.description
        case .german:
            let parts = day.description.split(separator: "-")
            guard parts.count == 3 else { return day.description }
            return "\(parts[2]).\(parts[1]).\(parts[0])"
        }
    }

    /// A whole number with the language's grouping: `12,345` or `12.345`.
    func number(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { grouped.append(self == .german ? "." : ",") }
            grouped.append(digit)
        }
        return (value < 0 ? "-" : "") + grouped
    }

    /// A number with `fractionDigits` decimals: `7.5` or `7,5`.
    func number(_ value: Double, fractionDigits: Int) -> String {
        let text = String(format: "%.\(fractionDigits)f", value)
        return self == .german ? text.replacingOccurrences(of: ".", with: ",") : text
    }
}
