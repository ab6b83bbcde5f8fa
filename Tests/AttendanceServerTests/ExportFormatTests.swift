import AttendanceExports
import Foundation
import Testing
import ZIPFoundation

@testable import AttendanceServer

/// The export formats' small rules: RFC 4180 quoting, spreadsheet-formula neutralising, XLSX
/// column names and XML escaping, and local times with their offset.
@Suite struct ExportFormatTests {
    @Test func csvQuotesOnlyWhatNeedsIt() {
        #expect(
            CSVText.record(["plain", "a,b", "say \"hi\"", "two\nlines", ""])
                == "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",\r\n")
    }

    @Test func textThatASpreadsheetWouldRunIsMadeInert() {
        #expect(TimesheetColumns.inert("=HYPERLINK(\"http://evil\")") == "'=HYPERLINK(\"http://evil\")")
        #expect(TimesheetColumns.inert("+1") == "'+1")
        #expect(TimesheetColumns.inert("@SUM(A1)") == "'@SUM(A1)")
        #expect(TimesheetColumns.inert("Ada Lovelace") == "Ada Lovelace")
    }

    @Test func xlsxColumnsAndTextAreWellFormed() {
        #expect(
            [0, 25, 26, 27, 51, 52, 701, 702].map(XLSXWriter.columnName) == [
                "A", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA",
            ])
        #expect(
            XLSXWriter.escaped("<a & \"b\"> 'c'\u{1}") == "&lt;a &amp; &quot;b&quot;&gt; &apos;c&apos;_x0001_")
        // What XML can't hold is kept as OOXML's escape, and a text that looks like one stays as typed.
        #expect(XLSXWriter.escaped("a\u{FFFE}b\u{FFFF}") == "a_xFFFE_b_xFFFF_")
        #expect(XLSXWriter.escaped("_x0041_ and _x12_") == "_x005F_x0041_ and _x12_")
    }

    @Test func localTimesCarryTheSitesOffset() {
        let instant = Date(timeIntervalSince1970: 1_774_746_000)  // 2026-03-29T01:00:00Z
        #expect(LocalTimestamp.format(instant, offsetSeconds: 7_200) == "2026-03-29T03:00:00+02:00")
        #expect(LocalTimestamp.format(instant, offsetSeconds: -18_000) == "2026-03-28T20:00:00-05:00")
        #expect(LocalTimestamp.format(instant, offsetSeconds: 19_800) == "2026-03-29T06:30:00+05:30")
    }

    /// The same rows make the same bytes whenever they are asked for (the console's download and
    /// the API's are compared byte for byte): every part of the archive has one fixed time, not
    /// the time it was written.
    @Test func anXLSXHoldsNoTimeOfWriting() throws {
        let writer = try XLSXWriter(sheetNames: ["Days"])
        try writer.append([.text("a"), .number(1)], toSheet: 0)
        let file = try writer.finish()
        defer { try? FileManager.default.removeItem(at: file) }
        let archive = try Archive(url: file, accessMode: .read)
        let dates = Set(archive.map { $0.fileAttributes[.modificationDate] as? Date })
        #expect(dates == [XLSXWriter.entryDate])
        #expect(archive.map(\.path).contains("xl/worksheets/sheet1.xml"))
    }
}
