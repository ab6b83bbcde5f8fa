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
    // @unchecked: `output`, `errors`, `pending` and `waiting` are only touched under `lock`;
    // `process` is started in init, then only signalled, and read once it has exited.
    public let process = Process()
    private let lock = NSLock()
    private var output = Data()
    private var errors = Data()
    /// What is still to come: the end of standard output, the end of standard error, the exit.
    private var pending = 3
    /// The callers of `finish` waiting for `pending` to reach 0.
    private var waiting: [CheckedContinuation<Finished, Never>] = []

    public init(
        _ executable: URL, _ arguments: [String], standardInput: String? = nil, environment: [String: String] = [:]
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        let pipe = Pipe()
        let errorPipe = Pipe()
        process.standardOutput = pipe
        process.standardError = errorPipe
        let input = Pipe()
        process.standardInput = input
        // The exit is awaited through this, never with `waitUntilExit()`: off the thread that
        // started the child, that polls a run loop with nothing in it, a busy loop that burns a core.
        process.terminationHandler = { [weak self] _ in self?.oneEnded() }
        try process.run()
        // Both pipes are read to their end by threads of their own, with blocking reads: no
        // cooperative thread waits, and no Dispatch read source (libdispatch on Linux has crashed in
        // its event loop when one was cancelled while its descriptor was at its end).
        for (handle, isOutput) in [(pipe.fileHandleForReading, true), (errorPipe.fileHandleForReading, false)] {
            Thread.detachNewThread { self.readToEnd(handle, isOutput: isOutput) }
        }
        if let standardInput { input.fileHandleForWriting.write(Data(standardInput.utf8)) }
        try input.fileHandleForWriting.close()
    }

    /// Appends what the child writes on `handle` to `output` or `errors`, until the end of file.
    private func readToEnd(_ handle: FileHandle, isOutput: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            lock.lock()
            if isOutput {
                output.append(contentsOf: buffer[..<count])
            } else {
                errors.append(contentsOf: buffer[..<count])
            }
            lock.unlock()
        }
        oneEnded()
    }

    /// Counts one of the three ends; the last one gives the waiting callers of `finish` the result,
    /// on its own thread (a reader's or the termination handler's: no Dispatch queue, whose few
    /// threads blocking work elsewhere in the tests can hold for seconds).
    private func oneEnded() {
        lock.lock()
        pending -= 1
        let resumed = pending == 0 ? waiting : []
        if pending == 0 { waiting = [] }
        lock.unlock()
        guard !resumed.isEmpty else { return }
        let result = finished()
        for continuation in resumed { continuation.resume(returning: result) }
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

    /// What the child has written to standard error so far.
    public var standardErrorSoFar: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: errors, as: UTF8.self)
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

    /// Waits for the child to exit and returns what it wrote. Nothing blocks meanwhile: the caller
    /// is resumed once both pipes have ended and the child has exited, and never holds one of Swift
    /// concurrency's cooperative threads while it waits (as many as cores: a blocked one stalls
    /// every other test).
    public func finish() async -> Finished {
        await withCheckedContinuation { continuation in
            lock.lock()
            guard pending == 0 else {
                waiting.append(continuation)
                lock.unlock()
                return
            }
            lock.unlock()
            continuation.resume(returning: finished())
        }
    }

    /// What the child wrote and how it ended: only once `pending` is 0.
    private func finished() -> Finished {
        process.waitUntilExit()  // returns at once (at most a moment): the termination handler has run
        lock.lock()
        let text = String(decoding: output, as: UTF8.self)
        let errorText = String(decoding: errors, as: UTF8.self)
        lock.unlock()
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()
        return Finished(status: process.terminationStatus, reason: process.terminationReason, lines: lines,
                        stdout: text, stderr: errorText)
    }
}
