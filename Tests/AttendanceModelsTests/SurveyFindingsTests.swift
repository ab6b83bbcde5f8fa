import AttendanceModels
import Foundation
import Testing

/// The survey's rule: another site's beacon within 6 dB of the site's own, or louder, or the
/// site's own not heard, is a finding with what would clear it.
@Suite struct SurveyFindingsTests {
    static let hq = SiteBeacon(major: 1)
    static let annex = SiteBeacon(major: 2)

    static func reading(_ site: SiteBeacon, minor: UInt16 = 1, _ rssi: Double, heard: Double = 1) -> SurveyReading {
        SurveyReading(
            beacon: BeaconIdentity(uuid: site.uuid, major: site.major, minor: minor), medianRSSI: rssi,
            heardShare: heard)
    }

    static func spot(_ label: String, _ readings: [SurveyReading]) -> SurveySpot {
        SurveySpot(
            label: label, kind: .desk, recordedAt: Date(timeIntervalSince1970: 0), seconds: 20, readings: readings)
    }

    static func findings(_ spots: [SurveySpot], otherSites: Set<SiteBeacon>? = nil) -> [SurveyFinding] {
        SurveyFindings.of(SiteSurvey(site: hq, spots: spots), otherSites: otherSites)
    }

    @Test func aNeighbourWithinSixDecibelsIsAFindingWithTheGapToClose() throws {
        let found = Self.findings([Self.spot("Desk 4.12", [Self.reading(Self.hq, -72), Self.reading(Self.annex, -75)])])
        let finding = try #require(found.first)
        #expect(finding.problem == .neighbourClose(dB: 3))
        let annexBeacon = BeaconIdentity(uuid: Self.annex.uuid, major: 2, minor: 1)
        #expect(finding.advice == [.addBeacon(dB: 3), .moveOrLower(annexBeacon, dB: 3)])
    }

    @Test func aLouderNeighbourSaysByHowMuch() throws {
        let found = Self.findings([Self.spot("Corner", [Self.reading(Self.hq, -80), Self.reading(Self.annex, -70)])])
        #expect(found.map(\.problem) == [.neighbourLouder(dB: 10)])
        #expect(found.first?.advice.first == .addBeacon(dB: 16))
    }

    @Test func sixDecibelsOrMoreIsNoFinding() {
        let clear = Self.spot("Desk 1", [Self.reading(Self.hq, -60), Self.reading(Self.annex, -66)])
        let alone = Self.spot("Desk 2", [Self.reading(Self.hq, -85)])
        #expect(Self.findings([clear, alone]).isEmpty)
    }

    @Test func theSitesOwnNotHeardIsAFinding() {
        let silent = Self.spot("Store room", [Self.reading(Self.annex, -90)])
        let rare = Self.spot("Stairs", [Self.reading(Self.hq, -70, heard: 0.1)])
        let found = Self.findings([silent, rare])
        #expect(found.map(\.spot.label) == ["Store room", "Stairs"])
        #expect(found.allSatisfy { $0.problem == .ownNotHeard && $0.own == nil })
    }

    @Test func theLoudestOfEachSideCountsAndRareOrForeignBeaconsDoNot() {
        let shop = SiteBeacon(major: 900)
        let spot = Self.spot(
            "Desk 7",
            [
                Self.reading(Self.hq, minor: 1, -85), Self.reading(Self.hq, minor: 2, -64),
                Self.reading(Self.annex, -68, heard: 0.2), Self.reading(shop, -60),
            ])
        // The annex is heard too rarely to count; the shop is not one of the employer's sites.
        #expect(Self.findings([spot], otherSites: [Self.annex]).isEmpty)
        // Counting every other beacon, the shop's is louder than HQ's own.
        #expect(Self.findings([spot]).map(\.problem) == [.neighbourLouder(dB: 4)])
    }

    @Test func aReadingIsTheMedianOfTheHeardSeconds() {
        let beacon = BeaconIdentity(uuid: Self.hq.uuid, major: 1, minor: 1)
        #expect(SurveyReading.of(beacon, rssi: [-70, -60, -80], seconds: 10) == SurveyReading(
            beacon: beacon, medianRSSI: -70, heardShare: 0.3))
        #expect(SurveyReading.of(beacon, rssi: [-70, -60], seconds: 2)?.medianRSSI == -65)
        #expect(SurveyReading.of(beacon, rssi: [], seconds: 10) == nil)
    }
}
