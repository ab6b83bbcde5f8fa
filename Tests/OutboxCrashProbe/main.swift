// The child process of the crash test (Tests/AttendanceSyncTests/CrashTests.swift). The test
// kills it with SIGKILL at random moments, then checks the database it leaves behind.
//
//   outbox-crash-probe enqueue DB FIRST COUNT   enqueue events FIRST..<FIRST+COUNT, printing each
//                                                number once its enqueue has returned (durable)
//   outbox-crash-probe drain DB URL             drain everything to the server at URL
import AttendanceModels
import AttendanceSync
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("outbox-crash-probe: \(message)\n".utf8))
    exit(2)
}

/// Event number n: sessions of five (check-in, three heartbeats, check-out), one second apart.
func event(_ n: Int) -> AttendanceEvent {
    let kinds: [AttendanceEvent.Kind] = [.checkIn, .heartbeat, .heartbeat, .heartbeat, .checkOut]
    return AttendanceEvent(
        kind: kinds[n % 5], userID: "crash-user", deviceID: "crash-device", site: SiteBeacon(major: 1),
        sessionKey: SessionKey("s-crash-\(n / 5)"), timestamp: Date(timeIntervalSince1970: 1_795_338_000 + Double(n)),
        source: .automatic, reason: n % 5 == 4 ? "regionExit" : nil)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: enqueue DB FIRST COUNT | drain DB URL") }
let store: DeviceStore
do { store = try DeviceStore.open(path: arguments[2]) } catch { fail("cannot open \(arguments[2]): \(error)") }

switch arguments[1] {
case "enqueue":
    guard arguments.count == 5, let first = Int(arguments[3]), let count = Int(arguments[4]) else {
        fail("enqueue DB FIRST COUNT")
    }
    for n in first..<(first + count) {
        do { try store.enqueue([event(n)], at: Date()) } catch { fail("enqueue \(n): \(error)") }
        // write(2) on a pipe: the line is out before the next enqueue starts.
        FileHandle.standardOutput.write(Data("\(n)\n".utf8))
    }
case "drain":
    guard arguments.count == 4, let url = URL(string: arguments[3]) else { fail("drain DB URL") }
    do {
        try store.recoverInFlight()
        let drainer = OutboxDrainer(
            store: store, uploader: HTTPUploader(settings: .init(baseURL: url), clock: SystemClock()),
            clock: SystemClock(),
            policy: RetryPolicy(baseDelaySeconds: 0.01, maxDelaySeconds: 0.05, minDelaySeconds: 0), jitterSeed: 7)
        let report = try await drainer.drain()
        let counts = try store.counts()
        print("delivered \(report?.delivered ?? 0) pending \(counts.undelivered) dead \(counts.dead)")
    } catch {
        fail("drain: \(error)")
    }
default:
    fail("unknown mode '\(arguments[1])'")
}
