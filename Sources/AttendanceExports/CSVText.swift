/// RFC 4180 text: fields separated by commas, records ended by CRLF, a field quoted when it holds
/// a comma, a quote, CR or LF, its quotes doubled.
///
/// Our own, not a package: the one in the machine's package list (yaslab/CSV.swift 2.5.2) writes
/// each byte through `OutputStream.write` and separates records by writing the newline before the
/// next one, which a streamed export written in chunks cannot use
/// (docs/decisions/0005-the-day-belongs-to-the-sites-clock.md).
public enum CSVText {
    public static func record(_ fields: [String]) -> String {
        var line = ""
        for (index, field) in fields.enumerated() {
            if index > 0 { line += "," }
            line += quoted(field)
        }
        return line + "\r\n"
    }

    public static func quoted(_ field: String) -> String {
        guard field.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else {
            return field
        }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
