import AttendanceModels
import Foundation

/// The enrollment screen: the server's address, the one-time code HR gave the employee, and a
/// name for the phone. iOS names every phone "iPhone" to apps since iOS 16 (`UIDevice.name`
/// without the user-assigned-device-name entitlement), so the employee names it here: HR sees
/// that name in the console's device lists, and it tells an employee's two phones apart.
public struct EnrollmentForm: Hashable, Sendable {
    public static let serverField = LocalizedText("Server address")
    public static let codeField = LocalizedText("Enrollment code")
    public static let phoneNameField = LocalizedText("Name of this phone")

    public enum Phase: Hashable, Sendable {
        case editing
        case submitting
        case failed(String)
        case enrolled(userID: String)
    }

    public var serverURL: String
    public var code: String
    public var phoneName: String
    public private(set) var phase: Phase = .editing

    /// The code's alphabet (the server's: no 0/O, 1/I/L look-alikes) and length without the dash.
    static let codeAlphabet = Set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
    static let codeLength = 10
    /// The server's limit for a device name is 200; a name HR reads in a table is far shorter.
    static let phoneNameMaxLength = 60

    /// `phoneName`: what to offer (the platform's name when it is the owner's, else empty).
    public init(serverURL: String = "", code: String = "", phoneName: String = "") {
        self.serverURL = serverURL
        self.code = code
        self.phoneName = phoneName
    }

    /// Whether the Enroll button is enabled.
    public var canSubmit: Bool {
        phase != .submitting && !serverURL.trimmingCharacters(in: .whitespaces).isEmpty && !code.isEmpty
            && !phoneName.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
    }

    /// The validated request, or every field that needs fixing.
    public func validated() -> Result<(url: URL, code: String, phoneName: String), FieldErrors> {
        var errors: [FieldError] = []
        let url = Self.url(from: serverURL)
        if case .failure(let error) = url { errors.append(error) }
        let normalized = Self.normalizedCode(code)
        if normalized.count != Self.codeLength || !normalized.allSatisfy(Self.codeAlphabet.contains) {
            errors.append(
                FieldError(
                    field: Self.codeField, value: code,
                    expected: LocalizedText(
                        "%lld letters and digits like K7P2Q-9XMWD (no 0, O, 1, I or L)", .count(Self.codeLength))))
        }
        let name = Self.phoneName(from: phoneName)
        if case .failure(let error) = name { errors.append(error) }
        guard errors.isEmpty, case .success(let serverURL) = url, case .success(let name) = name else {
            return .failure(FieldErrors(errors))
        }
        return .success((serverURL, String(normalized.prefix(5)) + "-" + String(normalized.suffix(5)), name))
    }

    /// The phone's name, trimmed: 1 to 60 characters, no control characters (it is shown in the
    /// console's tables and sent as the device's name).
    static func phoneName(from text: String) -> Result<String, FieldError> {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let control = trimmed.unicodeScalars.contains { $0.properties.generalCategory == .control }
        guard !trimmed.isEmpty, trimmed.count <= Self.phoneNameMaxLength, !control else {
            return .failure(
                FieldError(
                    field: Self.phoneNameField, value: text,
                    expected: LocalizedText(
                        "a name of 1 to %lld characters that tells HR which phone this is, like Anna's work iPhone",
                        .count(Self.phoneNameMaxLength))))
        }
        return .success(trimmed)
    }

    /// The code as the server compares it: upper case, letters and digits only.
    static func normalizedCode(_ text: String) -> String {
        text.uppercased().filter { $0.isLetter || $0.isNumber }
    }

    /// `https://` is added when no scheme is typed. Plain `http` is accepted only for this
    /// machine's own addresses (a developer's server); iOS App Transport Security refuses it elsewhere.
    static func url(from text: String) -> Result<URL, FieldError> {
        var trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !trimmed.contains("://") { trimmed = "https://" + trimmed }
        guard let components = URLComponents(string: trimmed), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty, let url = components.url
        else {
            return .failure(
                FieldError(
                    field: Self.serverField, value: text,
                    expected: LocalizedText("an address like https://attendance.example.com")))
        }
        let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback) else {
            return .failure(
                FieldError(
                    field: Self.serverField, value: text,
                    expected: LocalizedText(
                        "an address like https://attendance.example.com (https; plain http only for localhost)")))
        }
        guard components.query == nil, components.fragment == nil else {
            return .failure(
                FieldError(
                    field: Self.serverField, value: text,
                    expected: LocalizedText(
                        "an address like https://attendance.example.com without ?query or #fragment")))
        }
        return .success(url)
    }

    // MARK: - The flow

    public mutating func submitting() { phase = .submitting }
    public mutating func failed(_ message: String) { phase = .failed(message) }
    public mutating func enrolled(userID: String) { phase = .enrolled(userID: userID) }
    /// Typing again clears a failure.
    public mutating func edited() { if case .failed = phase { phase = .editing } }
}
