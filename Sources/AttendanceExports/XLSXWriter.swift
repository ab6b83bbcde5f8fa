import Foundation
import ZIPFoundation

/// A real Office Open XML workbook (ECMA-376 SpreadsheetML), written row by row: each sheet's XML
/// goes to a temporary file as rows arrive, and `finish` zips the parts (ZIPFoundation, deflate)
/// into one `.xlsx` file. Memory holds one row at a time, however many rows there are.
///
/// Numbers are numeric cells; text is an inline string (`t="inlineStr"`), which a spreadsheet
/// never evaluates as a formula.
public final class XLSXWriter {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let directory: URL
    private let sheetNames: [String]
    private var sheets: [FileHandle] = []
    private var rowCounts: [Int]
    private var buffers: [String]

    /// Sheets named `sheetNames` (at most 31 characters each, Excel's limit).
    public init(sheetNames: [String]) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("attendance-xlsx-" + UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.sheetNames = sheetNames
        rowCounts = Array(repeating: 0, count: sheetNames.count)
        buffers = Array(repeating: "", count: sheetNames.count)
        for index in sheetNames.indices {
            let url = sheetURL(index)
            guard FileManager.default.createFile(atPath: url.path, contents: nil),
                let handle = FileHandle(forWritingAtPath: url.path)
            else { throw Failure(description: "cannot write \(url.path)") }
            sheets.append(handle)
            buffers[index] = Self.sheetHead
        }
    }

    deinit {
        for handle in sheets { try? handle.close() }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Appends a row to sheet `sheet`.
    public func append(_ cells: [ExportCell], toSheet sheet: Int) throws {
        rowCounts[sheet] += 1
        let row = rowCounts[sheet]
        var xml = "<row r=\"\(row)\">"
        for (column, cell) in cells.enumerated() {
            let reference = Self.columnName(column) + String(row)
            switch cell {
            case .number(let number): xml += "<c r=\"\(reference)\"><v>\(number)</v></c>"
            case .text(let text):
                xml +=
                    "<c r=\"\(reference)\" t=\"inlineStr\"><is><t xml:space=\"preserve\">"
                    + Self.escaped(text) + "</t></is></c>"
            case .empty: break
            }
        }
        buffers[sheet] += xml + "</row>"
        if buffers[sheet].utf8.count > 64 * 1024 { try flush(sheet) }
    }

    /// Writes the workbook and returns its file (the caller streams it, then removes it with
    /// `remove`); the writer can't be used after.
    public func finish() throws -> URL {
        for index in sheetNames.indices {
            buffers[index] += "</sheetData></worksheet>"
            try flush(index)
            try sheets[index].close()
        }
        sheets = []
        let output = FileManager.default.temporaryDirectory
            .appendingPathComponent("attendance-" + UUID().uuidString + ".xlsx")
        let archive = try Archive(url: output, accessMode: .create)
        for (path, text) in packageParts() {
            let data = Data(text.utf8)
            try archive.addEntry(
                with: path, type: .file, uncompressedSize: Int64(data.count), modificationDate: Self.entryDate,
                compressionMethod: .deflate,
                provider: { position, size in data.subdata(in: Int(position)..<Int(position) + size) })
        }
        for index in sheetNames.indices {
            let file = try FileHandle(forReadingFrom: sheetURL(index))
            defer { try? file.close() }
            let size = try file.seekToEnd()
            try archive.addEntry(
                with: "xl/worksheets/sheet\(index + 1).xml", type: .file, uncompressedSize: Int64(size),
                modificationDate: Self.entryDate, compressionMethod: .deflate,
                provider: { position, size in
                    try file.seek(toOffset: UInt64(position))
                    return try file.read(upToCount: size) ?? Data()
                })
        }
        return output
    }

    /// Every part's time in the archive: fixed, so the same rows make the same bytes whenever and
    /// wherever they are asked for. A ZIP file holds local wall time (ZIPFoundation writes the
    /// process's zone), so this is noon on 1980-01-02 in that zone: the same fields in every zone.
    public static let entryDate: Date = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        return calendar.date(from: DateComponents(year: 1980, month: 1, day: 2, hour: 12))
            ?? Date(timeIntervalSince1970: 315_662_400)
    }()

    private func flush(_ sheet: Int) throws {
        try sheets[sheet].write(contentsOf: Data(buffers[sheet].utf8))
        buffers[sheet] = ""
    }

    private func sheetURL(_ index: Int) -> URL { directory.appendingPathComponent("sheet\(index + 1).xml") }

    private func packageParts() -> [(String, String)] {
        let overrides = sheetNames.indices.map { index in
            "<Override PartName=\"/xl/worksheets/sheet\(index + 1).xml\" "
                + "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/>"
        }.joined()
        let sheets = sheetNames.enumerated().map { index, name in
            "<sheet name=\"\(Self.escaped(String(name.prefix(31))))\" sheetId=\"\(index + 1)\" "
                + "r:id=\"rId\(index + 1)\"/>"
        }.joined()
        let relations = sheetNames.indices.map { index in
            "<Relationship Id=\"rId\(index + 1)\" "
                + "Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" "
                + "Target=\"worksheets/sheet\(index + 1).xml\"/>"
        }.joined()
        let stylesId = sheetNames.count + 1
        return [
            (
                "[Content_Types].xml",
                Self.declaration
                    + "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
                    + "<Default Extension=\"rels\" "
                    + "ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
                    + "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
                    + "<Override PartName=\"/xl/workbook.xml\" "
                    + "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>"
                    + "<Override PartName=\"/xl/styles.xml\" "
                    + "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml\"/>"
                    + overrides + "</Types>"
            ),
            (
                "_rels/.rels",
                Self.declaration
                    + "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
                    + "<Relationship Id=\"rId1\" "
                    + "Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" "
                    + "Target=\"xl/workbook.xml\"/></Relationships>"
            ),
            (
                "xl/workbook.xml",
                Self.declaration
                    + "<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
                    + "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">"
                    + "<sheets>" + sheets + "</sheets></workbook>"
            ),
            (
                "xl/_rels/workbook.xml.rels",
                Self.declaration
                    + "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
                    + relations + "<Relationship Id=\"rId\(stylesId)\" "
                    + "Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles\" "
                    + "Target=\"styles.xml\"/></Relationships>"
            ),
            (
                "xl/styles.xml",
                Self.declaration
                    + "<styleSheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\">"
                    + "<fonts count=\"1\"><font><sz val=\"11\"/><name val=\"Calibri\"/></font></fonts>"
                    + "<fills count=\"1\"><fill><patternFill patternType=\"none\"/></fill></fills>"
                    + "<borders count=\"1\"><border/></borders>"
                    + "<cellStyleXfs count=\"1\"><xf/></cellStyleXfs><cellXfs count=\"1\"><xf/></cellXfs>"
                    + "</styleSheet>"
            ),
        ]
    }

    package static let declaration = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
    package static let sheetHead =
        declaration + "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>"

    /// A, B, … Z, AA, AB…
    package static func columnName(_ index: Int) -> String {
        var index = index
        var name = ""
        repeat {
            name = String(UnicodeScalar(UInt8(65 + index % 26))) + name
            index = index / 26 - 1
        } while index >= 0
        return name
    }

    /// XML text: the five predefined entities escaped, and each character XML 1.0 forbids (a
    /// control character, U+FFFE, U+FFFF) written as OOXML's `_xHHHH_`, which a spreadsheet reads
    /// back as that character: nothing the CSV keeps is dropped. A text that itself looks like
    /// `_xHHHH_` has its underscore escaped (`_x005F_`), so it reads back as typed.
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n", "\r": result.unicodeScalars.append(scalar)
            case "_" where looksEscaped(scalars, from: index): result += "_x005F_"
            default:
                if scalar.value >= 0x20, !(0xFFFE...0xFFFF).contains(scalar.value) {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += "_x" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4) + "_"
                }
            }
        }
        return result
    }

    /// `_xHHHH_` starts at `index`.
    private static func looksEscaped(_ scalars: [Unicode.Scalar], from index: Int) -> Bool {
        guard index + 6 < scalars.count, scalars[index + 1] == "x", scalars[index + 6] == "_" else { return false }
        return scalars[(index + 2)...(index + 5)].allSatisfy { $0.properties.isASCIIHexDigit }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
