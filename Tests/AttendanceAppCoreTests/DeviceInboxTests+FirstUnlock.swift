import AttendanceAppCore
import AttendanceDeviceTestSupport
import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Before the first unlock after a reboot nothing the runtime needs can be read: region and
/// location callbacks go into the journal, and the first launch that can read the rest hands
/// them to the engine at the times iOS delivered them.
extension DeviceInboxTests {
    var journalURL: URL { folder.appendingPathComponent("before-first-unlock.json") }

    @Test func regionEventsBeforeTheFirstUnlockReachTheEngineAtTheirOwnTimes() async throws {
        let before = try await enrolled()
        unlocked.value = false
        // Whole seconds, after the enrolling process's events (the journal keeps times as numbers).
        let clock = ManualClock(Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 60).rounded(.down)))
        let enteredAt = clock.now()
        // iOS relaunches the locked phone for the entry (the SwiftUI app says only "background").
        let first = process(clock: clock)
        try await first.receive(.launchedInBackground)
        try await first.receive(.engine(.regionEntered(region), at: enteredAt))
        #expect(await first.lifecycle.state == .locked(held: []))
        #expect(try await first.status() == nil)
        // That process is gone; ten minutes later a screen wake's state callback relaunches it.
        clock.advance(by: 600)
        let second = process(clock: clock)
        try await second.receive(.engine(.regionStateDetermined(region, .inside), at: clock.now()))
        let journal = try PreUnlockJournal(url: journalURL).read()
        #expect(journal.entries.map(\.at) == [enteredAt, enteredAt.addingTimeInterval(600)])
        // The employee unlocks the phone while that process still runs.
        clock.advance(by: 20)
        unlocked.value = true
        try await second.receive(.protectedDataAvailable)
        #expect(await second.lifecycle.state == .running)
        let trace = try await tracedWithTimes(second).dropFirst(before)
        #expect(trace.map(\.event) == ["launch:regionEvent", "enter:1", "inside:1"])
        #expect(
            trace.map(\.time)
                == [enteredAt, enteredAt, enteredAt.addingTimeInterval(600)].map(RFC3339.format))
        #expect(!FileManager.default.fileExists(atPath: journalURL.path))
        #expect(errors.value.isEmpty)
    }

    @Test func aJournalLeftByAProcessThatDiedLockedIsReplayedByTheNextLaunch() async throws {
        let before = try await enrolled()
        unlocked.value = false
        let locked = process()
        try await locked.receive(.engine(.regionExited(region), at: Date().addingTimeInterval(1)))
        // Unlocked later, with no process running: the next launch, whatever its reason, replays it.
        unlocked.value = true
        let next = process()
        try await next.receive(.launch(.userOpened))
        let trace = try await traced(next).dropFirst(before)
        #expect(Array(trace) == ["launch:regionEvent", "exit:1"])
        #expect(!FileManager.default.fileExists(atPath: journalURL.path))
        #expect(errors.value.isEmpty)
    }

    @Test func withoutEnrollmentTheJournalIsSetAsideAndEmptied() async throws {
        unlocked.value = false
        let device = process()
        try await device.receive(.engine(.regionEntered(region)))
        try await device.receive(.engine(.locationWake))
        #expect(try PreUnlockJournal(url: journalURL).read().entries.count == 2)
        unlocked.value = true
        try await device.receive(.protectedDataAvailable)
        #expect(await device.lifecycle.state == .notEnrolled)
        #expect(await device.setAsideCount == 2)
        #expect(!FileManager.default.fileExists(atPath: journalURL.path))
    }

    @Test func aFullJournalGivesUpItsOldestAndSaysHowMany() async throws {
        let journal = PreUnlockJournal(url: journalURL, maxEntries: 3)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for second in 0..<5 {
            try journal.append(.regionEntered(region), at: start.addingTimeInterval(Double(second)))
        }
        let contents = try journal.read()
        #expect(contents.entries.map(\.at) == (2..<5).map { start.addingTimeInterval(Double($0)) })
        #expect(contents.dropped == 2)
        // Nothing personal: a beacon region, its kind and a time.
        let text = try String(contentsOf: journalURL, encoding: .utf8)
        #expect(!text.contains("alice") && text.contains("regionEntered"))
        try journal.clear()
        #expect(try journal.read().entries.isEmpty)
    }

    @Test func theProbeOpensTheEnrollmentFile() async throws {
        // No enrollment yet: nothing protected to wait for.
        #expect(AttendanceDevice.enrollmentReadable(in: folder))
        try await enrolled()
        #expect(AttendanceDevice.enrollmentReadable(in: folder))
        // A file that is there but cannot be opened, as iOS refuses one before the first unlock:
        // here a Unix socket's file (open(2) fails on it, for root too).
        let elsewhere = folder.appendingPathComponent("sock", isDirectory: true)
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        let socket = try #require(Self.boundSocket(at: elsewhere.appendingPathComponent("enrollment.json").path))
        defer { close(socket) }
        #expect(!AttendanceDevice.enrollmentReadable(in: elsewhere))
    }

    /// A Unix-domain socket bound at `path` (its file descriptor), or nil.
    static func boundSocket(at path: String) -> Int32? {
        #if canImport(Glibc)
            let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = Darwin.socket(AF_UNIX, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }
}
