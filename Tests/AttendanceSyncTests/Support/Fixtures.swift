import AttendanceModels
import Foundation

enum Fixtures {
    static let t0 = Date(timeIntervalSince1970: 1_795_338_000)   // 2026-11-22T09:00:00Z

    static func event(_ kind: AttendanceEvent.Kind, session: String, at seconds: Double, major: UInt16 = 1) -> AttendanceEvent {
        AttendanceEvent(kind: kind, userID: "u1", deviceID: "d1", site: SiteBeacon(major: major), sessionKey: SessionKey(session),
                        timestamp: t0.addingTimeInterval(seconds), source: .automatic, reason: kind == .checkOut ? "regionExit" : nil)
    }
}
