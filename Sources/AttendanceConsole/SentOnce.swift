import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// A form that makes a secret (an API token, enrollment codes, a new password) acts once. Its page
/// carries a one-time `formKey` (every page gets a new one); what the form sends (that key, the
/// action's path and every field but the CSRF token and the confirmation) is claimed before the
/// action runs. The same form sent again (F5 on the answer, a double click, Back then Send) is
/// refused with the time it was first sent, and nothing is made again: what the first send made
/// was shown only in its answer (after a double click the browser shows the second answer, so the
/// refusal says how to revoke or replace it). An action that fails gives its claim back, so the
/// corrected form can be sent.
extension Console {
    func once(
        _ request: Request, _ form: FormData, viewer: Viewer, _ action: () async throws -> Response
    ) async throws -> Response {
        let key = try form.required("formKey", label: "form key")
        try InputRules.identifier("formKey", key, maxLength: 64)
        let hash = Self.sentFormHash(path: request.uri.path, form)
        if let sentAt = try await services.repository.claimConsoleForm(
            hash: hash, accountId: viewer.account.id, now: environment.now())
        {
            throw Problem(
                409, viewer.t("Already sent"),
                viewer.t(
                    """
                    This form was already sent, at %@. What it made is shown only in the answer to that send; \
                    if you did not see it, revoke it or replace it, from a page opened anew.
                    """,
                    LocalTime.text(sentAt, zone: "UTC", in: viewer.language)))
        }
        do {
            return try await action()
        } catch {
            try? await services.repository.releaseConsoleForm(hash: hash)
            throw error
        }
    }

    /// The form's fields in name order (a script may send them in any), each name and value
    /// length-prefixed (no two forms read alike).
    static func sentFormHash(path: String, _ form: FormData) -> String {
        let fields = form.items.filter { $0.name != "csrf" && $0.name != "confirmed" }
            .sorted { ($0.name, $0.value) < ($1.name, $1.value) }
            .map { "\($0.name.utf8.count):\($0.name)\($0.value.utf8.count):\($0.value)" }
        return Tokens.hash("console-form|\(path.utf8.count):\(path)" + fields.joined())
    }
}
