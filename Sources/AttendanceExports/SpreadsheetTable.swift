import AttendanceRules
import Foundation
import SwiftCSV
import ZIPFoundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A spreadsheet a person uploads, as rows of text: CSV (comma, semicolon or tab, guessed by
/// SwiftCSV; UTF-8, a byte-order mark skipped) or the first sheet of an XLSX workbook (read with
/// ZIPFoundation and Foundation's XML parser: shared and inline strings, numbers as written).
public enum SpreadsheetTable {
    public static func rows(of bytes: [UInt8], filename: String) throws -> [[String]] {
        let lowered = filename.lowercased()
        if lowered.hasSuffix(".xlsx") || bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
            return try xlsx(Data(bytes))
        }
        guard var text = String(validating: bytes, as: UTF8.self) else {
            throw DomainError.field("file", filename, expected: "a CSV file in UTF-8, or an XLSX workbook")
        }
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        do {
            let csv = try CSV<Enumerated>(string: text, loadColumns: false)
            return [csv.header] + csv.rows
        } catch {
            throw DomainError.field("file", filename, expected: "a CSV file (\(error))")
        }
    }

    static func xlsx(_ data: Data) throws -> [[String]] {
        let archive: Archive
        do {
            archive = try Archive(data: data, accessMode: .read)
        } catch {
            throw DomainError.field("file", "not a ZIP archive", expected: "an XLSX workbook")
        }
        func entry(_ path: String) throws -> Data? {
            guard let found = archive[path] else { return nil }
            var data = Data()
            _ = try archive.extract(found, skipCRC32: false) { data.append($0) }
            return data
        }
        let shared = try entry("xl/sharedStrings.xml").map { SharedStrings.read($0) } ?? []
        guard let sheet = try entry("xl/worksheets/sheet1.xml") else {
            throw DomainError.field("file", "a workbook without xl/worksheets/sheet1.xml", expected: "an XLSX workbook")
        }
        return SheetRows.read(sheet, shared: shared)
    }
}

/// `xl/sharedStrings.xml`: each `<si>`'s text (its `<t>` runs joined).
private final class SharedStrings: NSObject, XMLParserDelegate {
    var strings: [String] = []
    private var current: String?
    private var inText = false

    static func read(_ data: Data) -> [String] {
        let reader = SharedStrings()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        parser.parse()
        return reader.strings
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if name == "si" { current = "" }
        if name == "t" { inText = true }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inText { current? += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        if name == "t" { inText = false }
        if name == "si", let text = current {
            strings.append(OOXMLText.unescaped(text))
            current = nil
        }
    }
}

/// A worksheet's rows: each `<c>` at its column (`r="C7"`), shared strings resolved.
private final class SheetRows: NSObject, XMLParserDelegate {
    var rows: [[String]] = []
    private let shared: [String]
    private var row: [String] = []
    private var column = 0
    private var type: String?
    private var value = ""
    private var inValue = false

    init(shared: [String]) { self.shared = shared }

    static func read(_ data: Data, shared: [String]) -> [[String]] {
        let reader = SheetRows(shared: shared)
        let parser = XMLParser(data: data)
        parser.delegate = reader
        parser.parse()
        return reader.rows
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        switch name {
        case "row": row = []
        case "c":
            type = attributes["t"]
            value = ""
            column = attributes["r"].map(Self.column) ?? row.count
        case "v", "t": inValue = true
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inValue { value += string }
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        switch name {
        case "v", "t": inValue = false
        case "c":
            var text = value
            if type == "s", let index = Int(value), shared.indices.contains(index) { text = shared[index] }
            if type == "inlineStr" || type == "str" { text = OOXMLText.unescaped(value) }
            while row.count < column { row.append("") }
            if row.count == column { row.append(text) } else { row[column] = text }
        case "row": rows.append(row)
        default: break
        }
    }

    /// `C7` → 2.
    static func column(_ reference: String) -> Int {
        var number = 0
        for scalar in reference.unicodeScalars where ("A"..."Z").contains(scalar) {
            number = number * 26 + Int(scalar.value - 64)
        }
        return max(number - 1, 0)
    }
}

/// OOXML's `_xHHHH_` escapes (what XML can't hold, as `XLSXWriter.escaped` writes them).
enum OOXMLText {
    static func unescaped(_ text: String) -> String {
        guard text.contains("_x") else { return text }
        var result = ""
        var scalars = Array(text.unicodeScalars)[...]
        while let first = scalars.first {
            if first == "_", scalars.count >= 7, scalars[scalars.startIndex + 1] == "x",
                scalars[scalars.startIndex + 6] == "_",
                let value = UInt32(String(String.UnicodeScalarView(scalars.dropFirst(2).prefix(4))), radix: 16),
                let scalar = Unicode.Scalar(value)
            {
                result.unicodeScalars.append(scalar)
                scalars = scalars.dropFirst(7)
            } else {
                result.unicodeScalars.append(first)
                scalars = scalars.dropFirst()
            }
        }
        return result
    }
}
