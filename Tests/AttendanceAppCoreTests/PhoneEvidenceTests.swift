import AttendanceAppCore
@testable import AttendanceEngine
import AttendanceModels
import AttendanceSync
import Foundation
import Testing

/// What the phone adds to a correction request and which beacons the scanner ranges: small
/// decisions the app's model used to make itself.
@Suite struct PhoneEvidenceTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_338_000)  // 2026-11-22T09:00:00Z
    static let hq = SiteBeacon(major: 1)

    static func tracked(_ key: SessionKey, heard: Bool = true) -> PresenceSession {
        PresenceSession(
            key: key, site: hq, checkInAt: t0, lastHeardAt: t0.addingTimeInterval(3_600),
            lastHeartbeatAt: t0, source: .automatic, heardSinceCheckIn: heard)
    }

    static func server(_ key: SessionKey) -> ServerSession {
        ServerSession(id: key, siteID: "hq", checkInAt: t0, checkOutAt: nil, status: "open", corrected: false, manual: false)
    }

    @Test func theBeaconLastHeardIsEvidenceOnlyForTheSessionThePhoneStillTracks() {
        let status = DeviceStatus(now: Self.t0, presence: [Self.hq: .inside(Self.tracked("s-1"))])
        let same = CorrectionRequestForm.PhoneEvidence(motion: nil, session: Self.server("s-1"), status: status)
        #expect(same.lastBeaconHeardAt == Self.t0.addingTimeInterval(3_600))
        let other = CorrectionRequestForm.PhoneEvidence(motion: nil, session: Self.server("s-2"), status: status)
        #expect(other.lastBeaconHeardAt == nil)
        let missed = CorrectionRequestForm.PhoneEvidence(motion: nil, session: nil, status: status)
        #expect(missed.lastBeaconHeardAt == nil)
        // A manual check-in that no beacon corroborated has no beacon time to offer.
        let manual = DeviceStatus(now: Self.t0, presence: [Self.hq: .inside(Self.tracked("s-1", heard: false))])
        #expect(
            CorrectionRequestForm.PhoneEvidence(motion: nil, session: Self.server("s-1"), status: manual)
                .lastBeaconHeardAt == nil)
    }

    @Test func theWalksComeFromMotionHistoryAndTheWalkOutFollowsTheCheckIn() {
        // Walked from 8:50 to 8:58, still since; asked at 9:30.
        let still = MotionSnapshot(
            at: Self.t0.addingTimeInterval(1_800), activity: .stationary,
            walkingSince: Self.t0.addingTimeInterval(-600), walkEndedAt: Self.t0.addingTimeInterval(-120))
        let status = DeviceStatus(now: Self.t0)
        let missed = CorrectionRequestForm.PhoneEvidence(motion: still, session: nil, status: status)
        #expect(missed.stoppedWalkingAt == Self.t0.addingTimeInterval(-120))
        #expect(missed.startedWalkingAt == Self.t0.addingTimeInterval(-600))
        // For a session checked in at 9:00, a walk that began at 8:50 and ended before is no walk out.
        let open = CorrectionRequestForm.PhoneEvidence(motion: still, session: Self.server("s-1"), status: status)
        #expect(open.startedWalkingAt == nil)
        #expect(CorrectionRequestForm.PhoneEvidence(motion: nil, session: nil, status: status) == .init())
    }

    @Test func siteNamesAreTheNamedSitesByServerID() {
        var status = DeviceStatus(now: Self.t0)
        status.sites = [
            SiteConfiguration(siteID: "hq", name: "Head office", major: 1),
            SiteConfiguration(name: "No id yet", major: 2),
        ]
        #expect(CorrectionRequestForm.siteNames(status, format: DisplayFormat(catalogue: DisplayFormat.english)) == ["hq": "Head office"])
    }

    @Test func theScannerRangesTheDefaultUUIDAndEverySitesOwn() {
        let own = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
        #expect(ScannerModel.rangedUUIDs(nil) == [SiteBeacon.defaultUUID])
        var status = DeviceStatus(now: Self.t0)
        status.sites = [SiteConfiguration(major: 1), SiteConfiguration(uuid: own, major: 2)]
        #expect(ScannerModel.rangedUUIDs(status) == [SiteBeacon.defaultUUID, own])
    }
}
