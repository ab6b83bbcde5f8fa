import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds an executable built next to the test bundle (scripts/test builds every target first).
public func builtExecutable(_ name: String) throws -> URL {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    while directory.path != "/" {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory = directory.deletingLastPathComponent()
    }
    throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(name) was not built; run scripts/test"])
}

/// A child process whose standard output is collected as it is written.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `output` is only touched under `lock`; `process` is used from the creating thread.
    public let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private let pipe = Pipe()
    private let errorPipe = Pipe()

    public init(_ executable: URL, _ arguments: [String], standardInput: String? = nil, environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        process.standardOutput = pipe
        process.standardError = errorPipe
        let input = Pipe()
        process.standardInput = input
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.lock()
            self.output.append(data)
            self.lock.unlock()
        }
        try process.run()
        if let standardInput { input.fileHandleForWriting.write(Data(standardInput.utf8)) }
        try input.fileHandleForWriting.close()
    }

    /// Whether the child has written anything yet.
    public var hasWritten: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !output.isEmpty
    }

    /// What the child has written to standard output so far.
    public var standardOutputSoFar: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// Sends a signal (SIGTERM, SIGINT) to the child.
    public func signal(_ number: Int32) {
        kill(process.processIdentifier, number)
    }

    public func killNow() {
        kill(process.processIdentifier, SIGKILL)
    }

    public struct Finished: Sendable {
        public var status: Int32
        public var reason: Process.TerminationReason
        /// Every complete line of standard output (a kill can cut the last one; it is dropped).
        public var lines: [String]
        public var stdout: String
        public var stderr: String
    }

    /// Waits for the child to exit and returns what it wrote.
    public func finish() -> Finished {
        let errors = errorPipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        pipe.fileHandleForReading.readabilityHandler = nil
        let rest = pipe.fileHandleForReading.readDataToEndOfFile()
        lock.lock()
        output.append(rest)
        let text = String(decoding: output, as: UTF8.self)
        lock.unlock()
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()
        return Finished(status: process.terminationStatus, reason: process.terminationReason, lines: lines, stdout: text,
                        stderr: String(decoding: errors, as: UTF8.self))
    }
}
