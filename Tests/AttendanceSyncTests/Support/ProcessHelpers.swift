import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds an executable built next to the test bundle (scripts/test builds every target first).
func builtExecutable(_ name: String) throws -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(name) was not built; run scripts/test"])
}

/// A child process whose standard output is collected as it is written.
final class ChildProcess: @unchecked Sendable {
    // @unchecked: `output` is only touched under `lock`; `process` is used from the creating thread.
    let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private let pipe = Pipe()

    init(_ executable: URL, _ arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.output.append(data)
            self.lock.unlock()
        }
        try process.run()
    }

    /// Whether the child has written anything yet.
    var hasWritten: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !output.isEmpty
    }

    func killNow() {
        kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for exit, then returns every complete line the child wrote.
    func finish() -> (status: Int32, reason: Process.TerminationReason, lines: [String]) {
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        let rest = pipe.fileHandleForReading.readDataToEndOfFile()
        lock.lock()
        output.append(rest)
        let text = String(decoding: output, as: UTF8.self)
        lock.unlock()
        // A line is complete only with its newline: a kill can cut the last one.
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()
        return (process.terminationStatus, process.terminationReason, lines)
    }
}
