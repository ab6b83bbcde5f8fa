import AttendanceRules
import Foundation
import Hummingbird

/// A refused form, shown again on its own page instead of an error page that loses it: the reason
/// at the top of the form (`failed.<form>`), the field the reason names marked (`invalid.<field>`,
/// for `aria-invalid`), and what was typed put back (`sent.<field>`; never a password).
struct FormFailure {
    /// The form's `id` in the page (`add-person`), or its kind in a table's row (`edit-site`).
    var form: String
    var problem: Problem
    var sent: FormData
    /// The `id` of the row whose form it was (a site's, for its `edit-site` form), nil for a form
    /// of the page's own. The row gets `refused.<form>`, `rowSent.<field>` and `rowInvalid.<field>`,
    /// and the form's `id` in the page is `<form>-<row>`.
    var row: String?

    /// Fields never sent back to the browser.
    static let secret: Set<String> = ["password", "current", "csrf", "formKey", "confirmed", "code"]

    /// The field a core refusal names: its detail starts "'field' is …" (`DomainError.field`).
    var field: String? {
        guard let match = problem.detail.firstMatch(of: #/^'([A-Za-z][A-Za-z0-9]*)' is /#) else { return nil }
        return String(match.output.1)
    }

    /// `page` with the refusal in it. A page's own form: `refusedForm`, `failed`, `invalid` and
    /// `sent` at the top level. A row's form: the dictionary, at any depth, whose `id` is `row`
    /// gets `refused`, `rowSent` and `rowInvalid`; a row the page no longer shows (a request decided
    /// meanwhile, a period past the list) gets the reason at the top of the page instead
    /// (`refusedAbove`), never a link to nothing.
    func shown(on page: [String: Any], _ words: Words) -> [String: Any] {
        var typed: [String: String] = [:]
        for item in sent.items where !Self.secret.contains(item.name) && typed[item.name] == nil {
            typed[item.name] = item.value
        }
        // The template's key for the form: `addPerson` for `add-person`.
        let parts = form.split(separator: "-")
        let key = parts.prefix(1).joined() + parts.dropFirst().map(\.capitalized).joined()
        let message = words.known(problem.title) + ": " + words.refusal(problem.detail)
        let invalid: [String: Bool] = field.map { [$0: true] } ?? [:]
        var shown = page
        guard let row else {
            shown.merge(["refusedForm": form, "failed": [key: message], "invalid": invalid, "sent": typed]) { $1 }
            return shown
        }
        var found = false
        func place(_ value: Any) -> Any {
            if var dictionary = value as? [String: Any] {
                guard dictionary["id"] as? String == row else { return dictionary.mapValues(place) }
                found = true
                dictionary["refused"] = [key: message]
                dictionary["rowSent"] = typed
                dictionary["rowInvalid"] = invalid
                return dictionary
            }
            if let array = value as? [[String: Any]] { return array.map { place($0) } }
            if let array = value as? [Any] { return array.map(place) }
            return value
        }
        shown = shown.mapValues(place)
        if found { shown["refusedForm"] = form + "-" + row } else { shown["refusedAbove"] = message }
        return shown
    }
}

extension Console {
    /// Runs a form's action. A refusal (a core `DomainError` or a `Problem`) answers with
    /// `template` again, made by `data`, with the refusal's status and `FormFailure`'s data
    /// for the form whose `id` is `form` (and a line at the top that links to it); any other
    /// failure is the error page, as before.
    func formAction(
        _ form: String, row: String? = nil, template: String, title: String, viewer: Viewer, sent: FormData,
        data: () async throws -> [String: Any], _ action: () async throws -> Response
    ) async throws -> Response {
        let problem: Problem
        do {
            return try await action()
        } catch let error as DomainError {
            problem = Problem(error)
        } catch let error as Problem {
            problem = error
        }
        guard problem.status < 500 else { throw problem }
        let failure = FormFailure(form: form, problem: problem, sent: sent, row: row)
        var response = page(
            template, title: title, viewer: viewer, failure.shown(on: try await data(), viewer.words),
            status: problem.status)
        if let seconds = problem.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }
}
