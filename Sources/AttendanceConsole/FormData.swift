import Foundation
import Hummingbird

/// An `application/x-www-form-urlencoded` body or a query string, as the browser sent it.
struct FormData: Sendable {
    private(set) var items: [(name: String, value: String)] = []
    /// Files sent with a `multipart/form-data` form (`FormData.multipart`).
    var files: [UploadedFile] = []

    init(_ text: String) {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ part: Substring) -> String {
                let spaced = String(part).replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            items.append((decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : ""))
        }
    }

    static func body(of request: Request) async throws -> FormData {
        var request = request
        let buffer = try await request.collectBody(upTo: 1 << 20)
        return FormData(String(buffer: buffer))
    }

    static func query(of request: Request) -> FormData { FormData(request.uri.query ?? "") }

    mutating func append(name: String, value: String) { items.append((name, value)) }

    /// The value, trimmed; nil when absent or empty.
    subscript(_ name: String) -> String? {
        guard
            let value = items.first(where: { $0.name == name })?.value.trimmingCharacters(in: .whitespacesAndNewlines),
            !value.isEmpty
        else { return nil }
        return value
    }

    /// The value exactly as sent (passwords: a space is part of one); nil when absent.
    func raw(_ name: String) -> String? { items.first { $0.name == name }?.value }

    func all(_ name: String) -> [String] { items.filter { $0.name == name }.map(\.value).filter { !$0.isEmpty } }

    /// A required field, or a problem naming it.
    func required(_ name: String, label: String) throws -> String {
        guard let value = self[name] else { throw Problem(400, "Missing \(label)", "'\(name)' is required") }
        return value
    }
}
