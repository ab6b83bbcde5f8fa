import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Starts programs with `posix_spawn` directly, never with Foundation's `Process`.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3.1) looks for the highest open descriptor by
/// copying each `/proc/self/fd` entry's whole 256-byte name out of readdir's 32 KB buffer. Once
/// the test process holds about 1,350 descriptors (servers, pools and pipes of tests running side
/// by side) that buffer is full, the copy of its last entry reads past its end, and now and then
/// the whole test process dies of SIGSEGV (swiftlang/swift-corelibs-foundation#5472; CI saw it).
/// Here glibc closes the child's other descriptors itself (`posix_spawn_file_actions_addclosefrom_np`).
public enum Spawn {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) { self.description = description }
    }

    /// A pipe whose two ends are closed in every child (each child closes all but 0, 1 and 2).
    public static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw Failure(description: "pipe() failed: \(errorText(errno))") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Starts `executable` with `arguments` in a process group of its own (as `Process` did), its
    /// standard input, output and error the given descriptors; every other descriptor of this
    /// process is closed in the child. `environment` replaces this process's when given.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil, standardInput: Int32, standardOutput: Int32, standardError: Int32
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (from, to) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
            try check(posix_spawn_file_actions_adddup2(&actions, from, to), "dup2 \(from) to \(to)", executable)
        }
        if let directory {
            try check(
                try gnuExtension(AddChangeDirectory.self, "posix_spawn_file_actions_addchdir_np")(&actions, directory),
                "chdir to \(directory)", executable)
        }
        try check(
            try gnuExtension(AddCloseFrom.self, "posix_spawn_file_actions_addclosefrom_np")(&actions, 3),
            "close descriptors from 3", executable)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        try check(posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP)), "set flags", executable)
        try check(posix_spawnattr_setpgroup(&attributes, 0), "set the process group", executable)

        let environment = environment ?? ProcessInfo.processInfo.environment
        let argv = CStrings([executable] + arguments)
        let envp = CStrings(environment.map { "\($0.key)=\($0.value)" })
        defer {
            argv.free()
            envp.free()
        }
        var pid: pid_t = 0
        try check(
            posix_spawn(&pid, executable, &actions, &attributes, argv.pointers, envp.pointers), "start", executable)
        return pid
    }

    /// How a child ended.
    public enum Ending: Sendable, Equatable {
        case exit(Int32)
        case uncaughtSignal(Int32)
    }

    /// Waits for `pid` to end, blocking the calling thread.
    public static func wait(_ pid: pid_t) throws -> Ending {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid(\(pid)) failed: \(errorText(errno))") }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exit((status >> 8) & 0xff) : .uncaughtSignal(signal)
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc's GNU extensions, which Swift's Glibc module does not declare (no `_GNU_SOURCE`).
    private static func gnuExtension<F>(_ type: F.Type, _ name: String) throws -> F {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else {
            throw Failure(description: "this C library has no \(name) (glibc 2.34 or later has it)")
        }
        return unsafeBitCast(symbol, to: type)
    }

    private static func check(_ result: Int32, _ step: String, _ executable: String) throws {
        guard result != 0 else { return }
        throw Failure(description: "could not start \(executable) (\(step)): \(errorText(result))")
    }

    static func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

    /// A NULL-terminated array of C strings, freed by hand.
    private struct CStrings {
        let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

        init(_ strings: [String]) {
            pointers = .allocate(capacity: strings.count + 1)
            for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
            pointers[strings.count] = nil
        }

        func free() {
            var index = 0
            while let pointer = pointers[index] {
                Glibc.free(pointer)
                index += 1
            }
            pointers.deallocate()
        }
    }
}
