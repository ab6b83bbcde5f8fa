import AttendanceTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The tests' own way of starting programs (`Spawn`, `ChildProcess`): what the child inherits, how
/// it ended, and a program that cannot be started named.
@Suite struct ChildProcessTests {
    /// Foundation's `Process.run()` reads past readdir's buffer once this process holds about 1,350
    /// descriptors and can die of SIGSEGV; the spawner must neither crash nor hand any of them on.
    @Test func aChildInheritsOnlyItsStandardDescriptorsWhileThisProcessHoldsThousands() async throws {
        let null = open("/dev/null", O_RDONLY)
        try #require(null >= 0)
        let held = (0..<2_000).map { _ in dup(null) }
        defer { for descriptor in held + [null] where descriptor >= 0 { close(descriptor) } }
        try #require(held.allSatisfy { $0 >= 0 }, "could not open 2,000 descriptors (ulimit -n?)")
        for _ in 0..<20 {
            let listing = try await ChildProcess(URL(fileURLWithPath: "/bin/ls"), ["/proc/self/fd"]).finish()
            #expect(listing.status == 0, "\(listing.stderr)")
            // ls's own three, and the directory it is reading.
            #expect(listing.lines == ["0", "1", "2", "3"])
        }
    }

    @Test func theExitStatusTheSignalTheInputTheDirectoryAndTheEnvironmentAreTheChilds() async throws {
        let shell = URL(fileURLWithPath: "/bin/sh")
        let exited = try await ChildProcess(shell, ["-c", "echo out; echo err >&2; exit 3"]).finish()
        #expect(exited.status == 3 && exited.reason == .exit)
        #expect(exited.lines == ["out"] && exited.stderr == "err\n")

        let echoed = try await ChildProcess(URL(fileURLWithPath: "/bin/cat"), [], standardInput: "a\nb\n").finish()
        #expect(echoed.lines == ["a", "b"])

        let directory = FileManager.default.temporaryDirectory.resolvingSymlinksInPath()
        let placed = try ChildProcess.run(
            shell, ["-c", "pwd; echo \"$CHILD_PROCESS_TEST\""], environment: ["CHILD_PROCESS_TEST": "set"],
            directory: directory)
        #expect(placed.lines == [directory.path, "set"])

        let sleeper = try ChildProcess(URL(fileURLWithPath: "/bin/sleep"), ["30"])
        #expect(sleeper.isRunning)
        sleeper.killNow()
        let killed = await sleeper.finish()
        #expect(killed.reason == .uncaughtSignal && killed.status == SIGKILL)
        #expect(!sleeper.isRunning)
    }

    @Test func aProgramThatCannotBeStartedIsNamed() {
        #expect {
            try ChildProcess(URL(fileURLWithPath: "/no/such/program"), [])
        } throws: { error in
            "\(error)".contains("could not start /no/such/program") && "\(error)".contains("No such file")
        }
    }
}
