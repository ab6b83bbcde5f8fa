import AttendanceAppCore
import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

/// The scanner's survey mode: one test per row of `SurveyModel`'s table, and a walk of two spots.
@Suite struct SurveyModelTests {
    static let hq = SiteBeacon(major: 1)
    static let annex = SiteBeacon(major: 2)
    static let shop = SiteBeacon(major: 900)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static var status: DeviceStatus {
        var configuration = Configuration()
        configuration.sites = [
            SiteConfiguration(siteID: "hq", name: "HQ", major: 1),
            SiteConfiguration(siteID: "annex", name: "Annex", major: 2),
        ]
        return DeviceStatus(now: now, sites: configuration.sites)
    }

    static func sample(_ site: SiteBeacon, _ rssi: Int, minor: UInt16 = 1) -> BeaconSample {
        BeaconSample(beacon: BeaconIdentity(uuid: site.uuid, major: site.major, minor: minor), rssi: rssi)
    }

    /// `seconds` ranging callbacks at one spot: HQ at `own`, the annex at `neighbour` (0: silent).
    static func hold(_ model: inout SurveyModel, seconds: Int, own: Int, neighbour: Int) {
        for second in 0..<seconds {
            // One second in five HQ's beacon is not heard, as ranging drops out.
            let ownRSSI = second % 5 == 4 ? 0 : own
            model.ranged([sample(hq, ownRSSI), sample(annex, neighbour), sample(shop, -50)])
        }
    }

    @Test func startingNamesTheSpotOrSaysWhatIsWrongWithTheName() {
        var model = SurveyModel(site: Self.hq, status: Self.status)
        let refused = model.start(label: "  ", kind: .desk)
        #expect(refused?.fields == [SurveyModel.spotField])
        #expect(refused?.errors.first?.expected.english.contains("1 to 60 characters") == true)
        #expect(model.state == .ready)
        #expect(model.start(label: " Desk 4.12 ", kind: .desk) == nil)
        guard case .recording(let recording) = model.state else { Issue.record("not recording"); return }
        #expect(recording.label == "Desk 4.12" && recording.kind == .desk && recording.seconds == 0)
    }

    @Test func eachRangingSecondIsRecordedOnlyWhileRecording() {
        var model = SurveyModel(site: Self.hq, status: Self.status)
        Self.hold(&model, seconds: 3, own: -60, neighbour: -70)
        #expect(model.state == .ready)
        _ = model.start(label: "Door", kind: .door)
        Self.hold(&model, seconds: 3, own: -60, neighbour: -70)
        guard case .recording(let recording) = model.state else { Issue.record("not recording"); return }
        #expect(recording.seconds == 3)
    }

    @Test func aSpotHeldStillLongEnoughIsSavedWithItsMedians() throws {
        var model = SurveyModel(site: Self.hq, status: Self.status)
        _ = model.start(label: "Desk 4.12", kind: .desk)
        Self.hold(&model, seconds: 20, own: -72, neighbour: -75)
        let spot = try model.save(at: Self.now).get()
        #expect(spot.seconds == 20 && spot.recordedAt == Self.now)
        // Loudest median first; HQ heard 16 of 20 seconds.
        #expect(spot.readings.map(\.beacon.major) == [900, 1, 2])
        #expect(spot.readings.map(\.medianRSSI) == [-50, -72, -75])
        #expect(spot.readings.map(\.heardShare) == [1, 0.8, 1])
        #expect(model.state == .ready && model.survey.spots == [spot])
        // The shop's beacon is not one of the employer's sites; the annex is 3 dB under HQ's own.
        #expect(model.findings.map(\.problem) == [.neighbourClose(dB: 3)])
    }

    @Test func aSpotHeldTooShortlyIsRefusedAndStillRecording() {
        var model = SurveyModel(site: Self.hq, status: Self.status)
        _ = model.start(label: "Corridor", kind: .corridor)
        Self.hold(&model, seconds: 4, own: -60, neighbour: -90)
        guard case .failure(let errors) = model.save(at: Self.now) else { Issue.record("saved"); return }
        #expect(errors.fields == [SurveyModel.recordingField])
        #expect(errors.errors.first?.value == "4 s")
        #expect(errors.errors.first?.expected.english.contains("at least 10 seconds") == true)
        Self.hold(&model, seconds: 6, own: -60, neighbour: -90)
        #expect((try? model.save(at: Self.now).get())?.label == "Corridor")
    }

    @Test func discardingKeepsNothing() {
        var model = SurveyModel(site: Self.hq, status: Self.status)
        _ = model.start(label: "Wrong place", kind: .other)
        Self.hold(&model, seconds: 12, own: -60, neighbour: -62)
        model.discard()
        #expect(model.state == .ready && model.survey.spots.isEmpty)
    }

    @Test func aSecondStartWhileRecordingIsRefused() {
        var model = SurveyModel(site: Self.hq, status: Self.status)
        _ = model.start(label: "Desk 1", kind: .desk)
        let refused = model.start(label: "Desk 2", kind: .desk)
        #expect(refused?.errors.first?.expected.english.contains("Desk 1 saved or discarded first") == true)
    }

    @Test func withNothingRecordedSavingIsRefusedAndTheRestDoesNothing() {
        var model = SurveyModel(site: Self.hq, status: Self.status)
        guard case .failure(let errors) = model.save(at: Self.now) else { Issue.record("saved"); return }
        #expect(errors.fields == [SurveyModel.recordingField])
        model.discard()
        model.remove(at: 3)
        #expect(model.state == .ready && model.survey.spots.isEmpty)
    }

    @Test func theLiveFindingShowsWhileRecordingAndRemovingASpotDropsItsFinding() throws {
        var model = SurveyModel(site: Self.hq, status: Self.status)
        _ = model.start(label: "Desk 9", kind: .desk)
        Self.hold(&model, seconds: 10, own: -80, neighbour: -70)
        #expect(model.liveFinding?.problem == .neighbourLouder(dB: 10))
        _ = try model.save(at: Self.now).get()
        _ = model.start(label: "Desk 10", kind: .desk)
        Self.hold(&model, seconds: 10, own: -60, neighbour: -90)
        #expect(model.liveFinding == nil)
        _ = try model.save(at: Self.now).get()
        #expect(model.findings.map(\.spot.label) == ["Desk 9"])
        model.remove(at: 0)
        #expect(model.findings.isEmpty && model.survey.spots.map(\.label) == ["Desk 10"])
    }
}
