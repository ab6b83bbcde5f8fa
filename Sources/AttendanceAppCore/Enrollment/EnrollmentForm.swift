import AttendanceModels
import Foundation

/// The enrollment screen: the server's address and the one-time code HR gave the employee.
public struct EnrollmentForm: Hashable, Sendable {
    public static let serverField = LocalizedText("Server address")
    public static let codeField = LocalizedText("Enrollment code")

    public enum Phase: Hashable, Sendable {
        case editing
        case submitting
        case failed(String)
        case enrolled(userID: String)
    }

    public var serverURL: String
    public var code: String
    public private(set) var phase: Phase = .editing

    /// The code's alphabet (the server's: no 0/O, 1/I/L look-alikes) and length without the dash.
    static let codeAlphabet = Set("23456789ABCDEFGHJKMNPQRSTUVWXYZ")
    static let codeLength = 10

    public init(serverURL: String = "", code: String = "") {
        self.serverURL = serverURL
        self.code = code
    }

    /// Whether the Enroll button is enabled.
    public var canSubmit: Bool {
        phase != .submitting && !serverURL.trimmingCharacters(in: .whitespaces).isEmpty && !code.isEmpty
    }

    /// The validated request, or every field that needs fixing.
    public func validated() -> Result<(url: URL, code: String), FieldErrors> {
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
        guard errors.isEmpty, case .success(let serverURL) = url else { return .failure(FieldErrors(errors)) }
        return .success((serverURL, String(normalized.prefix(5)) + "-" + String(normalized.suffix(5))))
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
