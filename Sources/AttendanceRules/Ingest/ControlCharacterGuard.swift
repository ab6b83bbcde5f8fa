import Foundation

/// The boundary's catch-all for values no operation accepts: control characters (`InputRules`:
/// Cc except tab and newline) in a path, a query or any string of a JSON body, so that no NUL
/// reaches a database (SQLite cuts text at a NUL; PostgreSQL refuses it), and JSON `null` in a
/// body (the contract has no nullable property; leave an optional property out). Every request is
/// checked once, before any handler.
public enum ControlCharacterGuard {
    /// The first refused value in a JSON body, or nil (also for a body that is not JSON: the
    /// operation's decoder refuses that one with its own 400).
    public static func problem(inJSON body: some Collection<UInt8>) -> DomainError? {
        guard mayHoldControlCharacter(body),
            let object = try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])
        else { return nil }
        guard let (field, value) = firstForbidden(in: object, path: "") else { return nil }
        guard let value else {
            return DomainError.field(
                field.isEmpty ? "the body" : field, "null", expected: "a value, or the property left out")
        }
        return refusal(field.isEmpty ? "the body" : field, value)
    }

    /// A refused path segment (percent-decoded), or nil.
    public static func problem(inPath path: String) -> DomainError? {
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard let decoded = String(segment).removingPercentEncoding else {
                return DomainError(
                    .invalid, "Invalid request", "the path segment '\(segment)' is not percent-encoded UTF-8")
            }
            if InputRules.firstForbiddenScalar(in: decoded) != nil { return refusal("path segment", decoded) }
        }
        return nil
    }

    /// A refused query parameter (name or percent-decoded value), or nil.
    public static func problem(inQuery query: String) -> DomainError? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            let value =
                parts.count > 1 ? String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding : ""
            guard let name, let value else {
                return DomainError(.invalid, "Invalid request", "the query '\(pair)' is not percent-encoded UTF-8")
            }
            if InputRules.firstForbiddenScalar(in: name) != nil { return refusal("query parameter name", name) }
            if InputRules.firstForbiddenScalar(in: value) != nil { return refusal(name, value) }
        }
        return nil
    }

    private static func refusal(_ field: String, _ value: String) -> DomainError {
        DomainError.field(
            field, InputRules.shown(value), expected: "text without control characters (tab and newline are allowed)")
    }

    /// A quick look at the bytes: a control character in a JSON string is either escaped (`\u00XX`,
    /// `\r`, `\b`, `\f`) or, for DEL and U+0080–U+009F, written raw; a null is the bytes `null`.
    /// Most bodies have none, and are not parsed a second time.
    package static func mayHoldControlCharacter(_ body: some Collection<UInt8>) -> Bool {
        var inString = false
        var escaped = false
        var previous: UInt8 = 0
        for byte in body {
            if !inString {
                if byte == UInt8(ascii: "\"") { inString = true } else if byte == UInt8(ascii: "n") { return true }
            } else if escaped {
                if [UInt8(ascii: "u"), UInt8(ascii: "r"), UInt8(ascii: "b"), UInt8(ascii: "f")].contains(byte) {
                    return true
                }
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            } else if byte == 0x7F || (previous == 0xC2 && (0x80...0x9F).contains(byte)) {
                return true
            }
            previous = byte
        }
        return false
    }

    /// The path and value of the first refused value; a nil value is a JSON null.
    private static func firstForbidden(in value: Any, path: String) -> (String, String?)? {
        switch value {
        case is NSNull:
            return (path, nil)
        case let text as String:
            return InputRules.firstForbiddenScalar(in: text) == nil ? nil : (path, text)
        case let array as [Any]:
            for (index, element) in array.enumerated() {
                if let found = firstForbidden(in: element, path: path + "[\(index)]") { return found }
            }
        case let object as [String: Any]:
            for key in object.keys.sorted() {
                if let found = firstForbidden(in: object[key] as Any, path: path.isEmpty ? key : path + "." + key) {
                    return found
                }
            }
        default:
            break
        }
        return nil
    }
}
