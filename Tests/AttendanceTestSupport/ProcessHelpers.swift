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

/// A child process whose standard output is collected as it is written. It is started with
/// `Spawn` (posix_spawn), not Foundation's `Process`, which can crash a process that holds many
/// descriptors (see `Spawn`).
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `output`, `errors`, `ending`, `pending` and `waiting` are only touched under
    // `condition`; `processIdentifier` is set in init and never changes.
    public let processIdentifier: pid_t
    private let condition = NSCondition()
    private var output = Data()
    private var errors = Data()
    private var ending: Spawn.Ending?
    /// What is still to come: the end of standard output, the end of standard error, the exit.
    private var pending = 3
    /// The callers of `finish` waiting for `pending` to reach 0.
    private var waiting: [CheckedContinuation<Finished, Never>] = []

    public init(
        _ executable: URL, _ arguments: [String], standardInput: String? = nil,
        environment: [String: String] = [:], directory: URL? = nil
    ) throws {
        let input = try Spawn.pipe()
        let out = try Spawn.pipe()
        let err = try Spawn.pipe()
        do {
            processIdentifier = try Spawn.start(
                executable.path, arguments,
                environment: environment.isEmpty
                    ? nil : ProcessInfo.processInfo.environment.merging(environment) { _, new in new },
                directory: directory?.path,
                standardInput: input.read, standardOutput: out.write, standardError: err.write)
        } catch {
            for end in [input.read, input.write, out.read, out.write, err.read, err.write] { close(end) }
            throw error
        }
        for end in [input.read, out.write, err.write] { close(end) }
        // Both pipes are read to their end, and the exit awaited, by threads of their own with
        // blocking calls: no cooperative thread waits, and no Dispatch source (libdispatch on
        // Linux has crashed in its event loop when one was cancelled while its descriptor was at
        // its end).
        for (descriptor, isOutput) in [(out.read, true), (err.read, false)] {
            Thread.detachNewThread { self.readToEnd(descriptor, isOutput: isOutput) }
        }
        let pid = processIdentifier
        Thread.detachNewThread {
            let ending = (try? Spawn.wait(pid)) ?? .uncaughtSignal(0)
            self.condition.lock()
            self.ending = ending
            self.condition.unlock()
            self.oneEnded()
        }
        if let standardInput { Self.writeAll(Array(standardInput.utf8), to: input.write) }
        close(input.write)
    }

    /// Writes `bytes` to `descriptor`, as far as the reader takes them.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// Appends what the child writes on `descriptor` to `output` or `errors`, until the end of file.
    private func readToEnd(_ descriptor: Int32, isOutput: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            condition.lock()
            if isOutput {
                output.append(contentsOf: buffer[..<count])
            } else {
                errors.append(contentsOf: buffer[..<count])
            }
            condition.unlock()
        }
        close(descriptor)
        oneEnded()
    }

    /// Counts one of the three ends; the last one gives the waiting callers of `finish` the result,
    /// on its own thread (a reader's or the waiter's: no Dispatch queue, whose few threads blocking
    /// work elsewhere in the tests can hold for seconds).
    private func oneEnded() {
        condition.lock()
        pending -= 1
        let resumed = pending == 0 ? waiting : []
        if pending == 0 {
            waiting = []
            condition.broadcast()
        }
        condition.unlock()
        guard !resumed.isEmpty else { return }
        let result = finished()
        for continuation in resumed { continuation.resume(returning: result) }
    }

    /// Whether the child has not been seen to exit yet.
    public var isRunning: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ending == nil
    }

    /// Whether the child has written anything yet.
    public var hasWritten: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !output.isEmpty
    }

    /// What the child has written to standard output so far.
    public var standardOutputSoFar: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: output, as: UTF8.self)
    }

    /// What the child has written to standard error so far.
    public var standardErrorSoFar: String {
        condition.lock()
        defer { condition.unlock() }
        return String(decoding: errors, as: UTF8.self)
    }

    /// Sends a signal (SIGTERM, SIGINT) to the child, unless it has already been reaped (its id
    /// may then be another process's).
    public func signal(_ number: Int32) {
        condition.lock()
        defer { condition.unlock() }
        if ending == nil { kill(processIdentifier, number) }
    }

    public func killNow() {
        signal(SIGKILL)
    }

    public enum TerminationReason: Sendable {
        case exit
        case uncaughtSignal
    }

    public struct Finished: Sendable {
        /// The exit status, or the signal that ended the child.
        public var status: Int32
        public var reason: TerminationReason
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
            condition.lock()
            guard pending == 0 else {
                waiting.append(continuation)
                condition.unlock()
                return
            }
            condition.unlock()
            continuation.resume(returning: finished())
        }
    }

    /// Waits for the child to exit, blocking the calling thread: for code that is not async (call
    /// it off the cooperative pool).
    public func finishBlocking() -> Finished {
        condition.lock()
        while pending > 0 { condition.wait() }
        condition.unlock()
        return finished()
    }

    /// Runs `executable` to its end, blocking the calling thread (call it off the cooperative pool).
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil
    ) throws -> Finished {
        try ChildProcess(executable, arguments, environment: environment, directory: directory).finishBlocking()
    }

    /// What the child wrote and how it ended: only once `pending` is 0.
    private func finished() -> Finished {
        condition.lock()
        let text = String(decoding: output, as: UTF8.self)
        let errorText = String(decoding: errors, as: UTF8.self)
        let ending = self.ending ?? .uncaughtSignal(0)
        condition.unlock()
        var lines = text.components(separatedBy: "\n")
        lines.removeLast()
        switch ending {
        case .exit(let status):
            return Finished(status: status, reason: .exit, lines: lines, stdout: text, stderr: errorText)
        case .uncaughtSignal(let signal):
            return Finished(status: signal, reason: .uncaughtSignal, lines: lines, stdout: text, stderr: errorText)
        }
    }
}
