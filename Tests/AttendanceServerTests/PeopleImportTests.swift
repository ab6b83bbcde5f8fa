import AttendanceExports
import AttendanceModels
import AttendanceRules
import Foundation
import Testing

/// People read from a spreadsheet and checked before anything is written: each row added or
/// refused with its reason, CSV in any of the delimiters a spreadsheet writes and XLSX alike.
@Suite struct PeopleImportTests {
    @Test func eachRowIsAddedOrSaysWhyNot() throws {
        let table = [
            ["Name", "Employee number", "E-mail"],
            ["Ada Lovelace", "E-1", "ada@example.com"],
            ["", "E-2", ""],
            ["Bo Diddley", "E-9", "bo-at-example"],
            ["Cy Twombly", "E-1", ""],
            ["Di Prima", "E-7", ""],
            ["", "", ""],
            ["Ed Ruscha", "", "ed@example.com"],
        ]
        let existing = [EmployeeRecord(id: "u-7", name: "Dee", externalId: "E-7")]
        let preview = try PeopleImport(table: table, existing: existing)
        #expect(preview.rows.map(\.line) == [2, 3, 4, 5, 6, 8], "a blank line is skipped, lines keep counting")
        #expect(preview.adding.map(\.name) == ["Ada Lovelace", "Ed Ruscha"])
        let problems = preview.rows.compactMap(\.problem)
        #expect(problems.count == 4)
        #expect(problems[0].hasPrefix("'name'"))
        #expect(problems[1].hasPrefix("'email' is 'bo-at-example'"))
        #expect(problems[2] == "employee number E-1 is already someone's", "twice in the file")
        #expect(problems[3] == "employee number E-7 is already someone's", "already in the directory")
    }

    @Test func aFileWithoutANameColumnIsRefusedNamingItsHeader() {
        #expect(throws: DomainError.self) { try PeopleImport(table: [["id", "mail"], ["1", "a@b.c"]], existing: []) }
        #expect(throws: DomainError.self) { try PeopleImport(table: [], existing: []) }
    }

    @Test func csvInEveryDelimiterAndAnXLSXReadTheSame() throws {
        let expected = [["name", "employee_number", "email"], ["Zoë Müller", "E-1", "zoe@example.com"]]
        for text in [
            "\u{FEFF}name,employee_number,email\r\nZoë Müller,E-1,zoe@example.com\r\n",
            "name;employee_number;email\nZoë Müller;E-1;zoe@example.com\n",
            "name\temployee_number\temail\nZoë Müller\tE-1\tzoe@example.com\n",
        ] {
            #expect(try SpreadsheetTable.rows(of: Array(text.utf8), filename: "people.csv") == expected)
        }
        let writer = try XLSXWriter(sheetNames: ["People"])
        try writer.append(expected[0].map { ExportCell.text($0) }, toSheet: 0)
        try writer.append(expected[1].map { ExportCell.text($0) } + [.number(42)], toSheet: 0)
        let url = try writer.finish()
        defer { try? FileManager.default.removeItem(at: url) }
        let rows = try SpreadsheetTable.rows(of: Array(try Data(contentsOf: url)), filename: "people.xlsx")
        #expect(rows == [expected[0], expected[1] + ["42"]])
        #expect(throws: DomainError.self) {
            try SpreadsheetTable.rows(of: [0xFF, 0xFE, 0x00], filename: "people.csv")
        }
    }
}
