import AttendanceExports
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// People imported from a spreadsheet: the file is read and every row checked first (a preview,
/// nothing written); then the rows that pass are added one by one, with the same rules and audit
/// rows as adding a person by hand.
extension Console {
    func registerImport(on console: RouterGroup<AttendanceRequestContext>) {
        console.post(
            "people/import",
            use: signedIn("previewImport", needs: .managePeople) { _, _, viewer, form in
                guard let file = form.files.first(where: { $0.field == "file" }), !file.bytes.isEmpty else {
                    throw DomainError.field("file", nil, expected: "a CSV or XLSX file of people")
                }
                let table = try SpreadsheetTable.rows(of: file.bytes, filename: file.filename)
                let preview = try PeopleImport(table: table, existing: try await services.repository.employees())
                return page(
                    "people-import", title: viewer.t("Import people"), viewer: viewer,
                    importData(preview, file.filename, viewer))
            })
        console.post(
            "people/import/confirm",
            use: signedIn("importPeople", needs: .managePeople) { _, _, viewer, form in
                // The rows come back from the preview's form: checked again, never trusted.
                let names = form.items.filter { $0.name == "name" }.map(\.value)
                let numbers = form.items.filter { $0.name == "externalId" }.map(\.value)
                let emails = form.items.filter { $0.name == "email" }.map(\.value)
                guard names.count == numbers.count, names.count == emails.count, !names.isEmpty else {
                    throw DomainError.field("rows", "\(names.count) names", expected: "the rows of a preview")
                }
                let table =
                    [["name", "employee_number", "email"]] + names.indices.map { [names[$0], numbers[$0], emails[$0]] }
                let checked = try PeopleImport(table: table, existing: try await services.repository.employees())
                var added = try await Bulk.each(checked.adding, name: \.name) { row in
                    try await services.admin.createEmployee(
                        name: row.name, externalId: row.externalId, email: row.email, actor: viewer.actor)
                }
                // Rows refused on the second check: named first, in the file's order.
                added.failed =
                    checked.rows.compactMap { row in
                        Self.problem(of: row, viewer).map { "\(Bidi.isolated(row.name)): \($0)" }
                    }
                    + added.failed
                let count = added.done.count
                let notice =
                    viewer.tp("%lld people added.", count: count) + added.failures { viewer.t("Not added: %@", $0) }
                return page(
                    "people", title: viewer.t("People"), viewer: viewer, try await peopleData(viewer, FormData("")),
                    notice: notice)
            })
    }

    private func importData(_ preview: PeopleImport, _ filename: String, _ viewer: Viewer) -> [String: Any] {
        let rows: [[String: Any]] = preview.rows.map { row in
            [
                "line": row.line, "lineText": viewer.words.number(row.line), "name": row.name,
                "externalId": row.externalId ?? "", "email": row.email ?? "",
                "problem": Self.problem(of: row, viewer) ?? "", "ok": row.problem == nil,
            ]
        }
        let adding = preview.adding.count
        return [
            "filename": filename, "rows": rows, "adding": viewer.words.number(adding),
            "refused": viewer.words.number(preview.rows.count - adding),
            "addButton": viewer.tp("Add %lld people", count: adding), "mayAdd": adding > 0,
            "valid": preview.adding.map {
                ["name": $0.name, "externalId": $0.externalId ?? "", "email": $0.email ?? ""] as [String: Any]
            },
        ]
    }

    /// Why a row is refused, in the viewer's words: a number taken, or the core's check of a field
    /// (`Words.refusal`).
    static func problem(of row: PeopleImport.Row, _ viewer: Viewer) -> String? {
        guard let problem = row.problem else { return nil }
        if let number = row.externalId, problem == "employee number \(number) is already someone's" {
            return viewer.t("employee number %@ is already someone's", number)
        }
        return viewer.words.refusal(problem)
    }
}
