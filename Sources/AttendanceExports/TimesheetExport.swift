import AttendanceServer
import Foundation

/// A timesheet as an RFC 4180 CSV, produced as it is read: each `next()` reads and computes one
/// chunk of employees (`TimesheetReader`) and returns their rows' bytes, so a response or a file
/// written from it holds one chunk at a time, and a slow reader slows the reading, not the memory.
public struct TimesheetCSV: AsyncSequence, Sendable {
    public typealias Element = ArraySlice<UInt8>

    package let service: TimesheetService
    package let query: TimesheetQuery

    public init(service: TimesheetService, query: TimesheetQuery) {
        self.service = service
        self.query = query
    }

    public func makeAsyncIterator() -> Iterator { Iterator(service: service, query: query) }

    public struct Iterator: AsyncIteratorProtocol {
        package let service: TimesheetService
        package let query: TimesheetQuery
        package var reader: TimesheetReader?
        package var finished = false
        package let zones = ZoneCache()

        public mutating func next() async throws -> ArraySlice<UInt8>? {
            guard !finished else { return nil }
            guard var open = reader else {
                reader = try await service.open(query)
                return ArraySlice(CSVText.record(TimesheetColumns.days).utf8)
            }
            defer { reader = open }
            guard let chunk = try await open.next() else {
                finished = true
                return nil
            }
            var text = ""
            for employee in chunk {
                for day in employee.days {
                    let cells = TimesheetColumns.cells(day, employeeName: employee.employee.name, zones: zones)
                    text += CSVText.record(cells.map(\.text))
                }
            }
            return ArraySlice(text.utf8)
        }
    }
}

/// A timesheet as an XLSX workbook: sheet "Days" (the CSV's rows, cell for cell) and sheet
/// "Weeks". Written to a temporary file (one chunk of employees in memory at a time); the caller
/// sends the file and removes it.
public enum TimesheetWorkbook {
    public static func write(service: TimesheetService, query: TimesheetQuery) async throws -> URL {
        var reader = try await service.open(query)
        let writer = try XLSXWriter(sheetNames: ["Days", "Weeks"])
        let zones = ZoneCache()
        try writer.append(TimesheetColumns.days.map(ExportCell.text), toSheet: 0)
        try writer.append(TimesheetColumns.weeks.map(ExportCell.text), toSheet: 1)
        while let chunk = try await reader.next() {
            for employee in chunk {
                for day in employee.days {
                    try writer.append(
                        TimesheetColumns.cells(day, employeeName: employee.employee.name, zones: zones), toSheet: 0)
                }
                for week in employee.weeks {
                    try writer.append(TimesheetColumns.cells(week, employeeName: employee.employee.name), toSheet: 1)
                }
            }
        }
        return try writer.finish()
    }
}

/// A file's bytes in 64 KiB chunks, the file removed once read to the end (or dropped).
public struct FileChunks: AsyncSequence, Sendable {
    public typealias Element = ArraySlice<UInt8>
    package let url: URL

    public init(url: URL) { self.url = url }

    public func makeAsyncIterator() -> Iterator { Iterator(url: url) }

    public final class Iterator: AsyncIteratorProtocol {
        package let url: URL
        package var handle: FileHandle?
        package var done = false

        package init(url: URL) { self.url = url }

        deinit {
            try? handle?.close()
            try? FileManager.default.removeItem(at: url)
        }

        public func next() async throws -> ArraySlice<UInt8>? {
            guard !done else { return nil }
            if handle == nil { handle = try FileHandle(forReadingFrom: url) }
            guard let data = try handle?.read(upToCount: 64 * 1024), !data.isEmpty else {
                done = true
                try? handle?.close()
                handle = nil
                try? FileManager.default.removeItem(at: url)
                return nil
            }
            return ArraySlice(data)
        }
    }
}
