import Foundation

/// What a request's strings may hold (docs/SERVER.md, "Identifiers and text"). Every refusal is a
/// 400 `Problem` naming the field, the value (control characters shown as `\u{…}`) and the rule.
///
/// - Identifiers (`sessionKey`, `Idempotency-Key`, site, user, device and beacon ids, cursors):
///   ASCII letters, digits and `.` `_` `~` `:` `-` (RFC 3986's unreserved set and the colon),
///   1 to 255 characters for keys and 1 to 128 for ids.
/// - Free text (names, reasons, labels, e-mail, external ids): any Unicode except control
///   characters (Unicode category Cc: NUL, U+0001–U+001F, DEL, U+0080–U+009F), tab and newline
///   excepted; at most the field's length in characters. What is accepted is stored and read back
///   byte for byte on both backends.
public enum InputRules {
    public static let maxKeyLength = 255
    public static let maxIdLength = 128
    public static let maxNameLength = 200
    public static let maxReasonLength = 500
    public static let identifierPattern = "^[A-Za-z0-9._~:-]+$"
    public static let identifierExpectation = "1 to 255 of the characters A-Z a-z 0-9 . _ ~ : -"

    /// Refuses an identifier outside the character set or the length.
    public static func identifier(_ field: String, _ value: String, maxLength: Int = maxKeyLength) throws {
        let valid = !value.isEmpty && value.utf8.count <= maxLength && value.utf8.allSatisfy(isIdentifierByte)
        guard valid else {
            throw DomainError.field(
                field, shown(value), expected: "1 to \(maxLength) of the characters A-Z a-z 0-9 . _ ~ : -")
        }
    }

    /// Refuses text with a control character (tab and newline allowed), or longer than `maxLength`
    /// characters; `allowEmpty: false` also refuses an empty or blank text.
    public static func text(_ field: String, _ value: String, maxLength: Int, allowEmpty: Bool = true) throws {
        if let scalar = firstForbiddenScalar(in: value) {
            let code = String(format: "U+%04X", scalar.value)
            throw DomainError.field(
                field, shown(value),
                expected: "text without control characters (found \(code); tab and newline are allowed)")
        }
        if !allowEmpty, value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw DomainError.field(field, value, expected: "a non-empty text")
        }
        // Counted as JSON Schema's maxLength counts: Unicode scalars.
        let length = value.unicodeScalars.count
        guard length <= maxLength else {
            throw DomainError.field(field, shown(value), expected: "at most \(maxLength) characters (it has \(length))")
        }
    }

    /// The first control character other than tab and newline, if any.
    public static func firstForbiddenScalar(in value: String) -> Unicode.Scalar? {
        value.unicodeScalars.first(where: isForbidden)
    }

    package static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A: false
        case 0x00...0x1F, 0x7F...0x9F: true
        default: false
        }
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// The value as a problem shows it: control characters escaped, at most 80 characters.
    public static func shown(_ value: String) -> String {
        var out = ""
        for scalar in value.unicodeScalars.prefix(80) {
            if isForbidden(scalar) || scalar == "\t" || scalar == "\n" {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return value.unicodeScalars.count > 80 ? out + "…" : out
    }
}
