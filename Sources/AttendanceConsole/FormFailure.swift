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

    func data(_ words: Words) -> [String: Any] {
        var typed: [String: String] = [:]
        for item in sent.items where !Self.secret.contains(item.name) && typed[item.name] == nil {
            typed[item.name] = item.value
        }
        // The template's key for the form: `addPerson` for `add-person`.
        let parts = form.split(separator: "-")
        let key = parts.prefix(1).joined() + parts.dropFirst().map(\.capitalized).joined()
        let message = words.known(problem.title) + ": " + words.refusal(problem.detail)
        let invalid: [String: Bool] = field.map { [$0: true] } ?? [:]
        guard row == nil else {
            return [
                "refusedForm": form + "-" + (row ?? ""), "refusedRow": [key: message], "rowSent": typed,
                "rowInvalid": invalid,
            ]
        }
        return ["refusedForm": form, "failed": [key: message], "invalid": invalid, "sent": typed]
    }

    /// `data` with the refusal moved into the row it belongs to: the dictionary, at any depth,
    /// whose `id` is `row` gets `refused`, `rowSent` and `rowInvalid`. A row the page no longer
    /// shows (a request decided meanwhile, a period past the list) gets the reason at the top of
    /// the page instead (`refusedAbove`), never a link to nothing.
    func placed(in data: [String: Any]) -> [String: Any] {
        guard let row else { return data }
        let failure = data
        var found = false
        func place(_ value: Any) -> Any {
            if var dictionary = value as? [String: Any] {
                if dictionary["id"] as? String == row {
                    found = true
                    dictionary["refused"] = failure["refusedRow"]
                    dictionary["rowSent"] = failure["rowSent"]
                    dictionary["rowInvalid"] = failure["rowInvalid"]
                    return dictionary
                }
                return dictionary.mapValues(place)
            }
            if let array = value as? [[String: Any]] { return array.map { place($0) } }
            if let array = value as? [Any] { return array.map(place) }
            return value
        }
        var placed = data.mapValues(place)
        for key in ["refusedRow", "rowSent", "rowInvalid"] { placed[key] = nil }
        if !found {
            placed["refusedForm"] = nil
            placed["refusedAbove"] = (failure["refusedRow"] as? [String: String])?.values.first
        }
        return placed
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
        var all = try await data()
        let failure = FormFailure(form: form, problem: problem, sent: sent, row: row)
        all.merge(failure.data(viewer.words)) { _, failure in failure }
        var response = page(template, title: title, viewer: viewer, failure.placed(in: all), status: problem.status)
        if let seconds = problem.retryAfterSeconds { response.headers[.retryAfter] = String(seconds) }
        return response
    }
}
