import AttendanceModels
import Foundation

/// People read from a spreadsheet (CSV or XLSX), checked before anything is written: each row
/// either becomes a new employee or says why not. Pure: the table and the directory are given.
public struct PeopleImport: Hashable, Sendable {
    public struct Row: Hashable, Sendable {
        /// The row's line in the file (the header is line 1).
        public var line: Int
        public var name: String
        public var externalId: String?
        public var email: String?
        /// Why this row would not be added; nil when it would be.
        public var problem: String?
    }

    public static let maximumRows = 5_000

    public var rows: [Row]
    public var adding: [Row] { rows.filter { $0.problem == nil } }

    /// The columns a file may name (case, spaces and `_`/`-` aside): the name is required.
    static let columns: [String: String] = [
        "name": "name", "fullname": "name", "employee": "name",
        "employeenumber": "externalId", "number": "externalId", "externalid": "externalId", "personnelnumber": "externalId",
        "email": "email", "emailaddress": "email", "mail": "email",
    ]

    /// `table`'s first row is its header. Refused (naming what) when no column is a name, or the
    /// file has more rows than `maximumRows`.
    public init(table: [[String]], existing: [EmployeeRecord]) throws {
        guard let header = table.first else {
            throw DomainError.field("file", "empty", expected: "a header row (name, employee_number, email) and rows")
        }
        var index: [String: Int] = [:]
        for (position, title) in header.enumerated() {
            let key = title.lowercased().filter { $0.isLetter || $0.isNumber }
            if let field = Self.columns[key], index[field] == nil { index[field] = position }
        }
        guard index["name"] != nil else {
            throw DomainError.field(
                "file", "a header of \(header.prefix(6).joined(separator: ", "))",
                expected: "a column named name (and optionally employee_number and email)")
        }
        let body = table.dropFirst().enumerated().filter { _, cells in
            !cells.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
        guard body.count <= Self.maximumRows else {
            throw DomainError.field("file", "\(body.count) rows", expected: "at most \(Self.maximumRows) people at once")
        }
        var taken = Set(existing.compactMap(\.externalId))
        var rows: [Row] = []
        for (offset, cells) in body {
            func cell(_ field: String) -> String? {
                guard let column = index[field], column < cells.count else { return nil }
                let text = cells[column].trimmingCharacters(in: .whitespaces)
                return text.isEmpty ? nil : text
            }
            var row = Row(
                line: offset + 2, name: cell("name") ?? "", externalId: cell("externalId"), email: cell("email"))
            do {
                _ = try EmployeeRules.validated(
                    id: UserID("import"), name: row.name, externalId: row.externalId, email: row.email)
                if let number = row.externalId {
                    if taken.contains(number) {
                        row.problem = "employee number \(number) is already someone's"
                    } else {
                        taken.insert(number)
                    }
                }
            } catch let error as DomainError {
                row.problem = error.detail
            }
            rows.append(row)
        }
        self.rows = rows
    }
}
