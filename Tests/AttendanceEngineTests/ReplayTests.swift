import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

@Suite struct ReplayTests {
    static let uuid = "FDA50693-0000-0000-0000-290995101092"

    /// The issue's acceptance trace: 60 s at −60 dBm, 8 s of rssi 0, 60 s at −60 dBm, then nothing.
    static var dropoutTrace: String {
        var rows = ["t,uuid,major,minor,rssi"]
        for second in 0..<128 {
            let rssi = (60..<68).contains(second) ? 0 : -60
            rows.append("\(second),\(uuid),1,100,\(rssi)")
        }
        return rows.joined(separator: "\n") + "\n"
    }

    @Test func theDropoutTraceGivesOneCheckInAndOneCheckOutAtTheLastSample() throws {
        let result = Replayer().run(try ReplayTrace.parse(Self.dropoutTrace))
        #expect(result.decisions.map(\.type) == [.checkIn, .checkOut])
        #expect(result.decisions[1].ts == Date(timeIntervalSince1970: 127))
        #expect(result.decisions[0].sessionKey == result.decisions[1].sessionKey)
        #expect(result.decisions[1].reason == "regionExit")
        #expect(result.synthesizedRegionEvents == 2)   // one entry, one exit
    }

    @Test func withoutSettleTimeTheCheckOutIsStillPending() throws {
        let result = Replayer(settleSeconds: 0).run(try ReplayTrace.parse(Self.dropoutTrace))
        #expect(result.decisions.map(\.type) == [.checkIn])
        #expect(result.finalEngine.openSessions.count == 1)
    }

    /// A manual button dated back (`manualCheckIn@SECONDS`) replays with the employee's time.
    @Test func aDatedManualCheckInReplaysWithTheEmployeesTime() throws {
        let trace = "t,uuid,major,minor,rssi\n600,event,manualCheckIn@420:4:sat down\n5000,event,manualCheckOut@90:home\n"
        var configuration = Configuration()
        configuration.sites = [SiteConfiguration(major: 4)]
        let result = Replayer(configuration: configuration).run(try ReplayTrace.parse(trace))
        #expect(result.decisions.map(\.type) == [.checkIn, .checkOut])
        #expect(result.decisions.map(\.ts) == [Date(timeIntervalSince1970: 180), Date(timeIntervalSince1970: 4_910)])
        #expect(result.decisions.map(\.decidedAt) == [Date(timeIntervalSince1970: 600), Date(timeIntervalSince1970: 5_000)])
    }

    @Test func rfc3339TimesAndEventRowsReplay() throws {
        let trace = """
            t,uuid,major,minor,rssi
            2026-11-22T08:59:58+01:00,event,launch:regionEvent
            2026-11-22T09:00:00+01:00,event,enter:4
            2026-11-22T09:00:00+01:00,event,walking
            2026-11-22T09:00:01+01:00,\(Self.uuid),4,1,-72
            2026-11-22T09:00:02+01:00,\(Self.uuid),4,1,-73
            2026-11-22T09:00:03+01:00,\(Self.uuid),4,2,-74
            2026-11-22T09:00:04+01:00,event,stationary
            2026-11-22T09:30:00+01:00,event,exit:4
            """
        var configuration = Configuration()
        configuration.sites = [SiteConfiguration(major: 4)]
        let result = Replayer(configuration: configuration).run(try ReplayTrace.parse(trace))
        #expect(result.synthesizedRegionEvents == 0)
        try #require(result.decisions.map(\.type) == [.checkIn, .checkOut])
        #expect(result.decisions[0].ts == (try RFC3339.parse("2026-11-22T08:00:00Z")))
        #expect(result.decisions[0].decidedAt == (try RFC3339.parse("2026-11-22T08:00:08Z")))   // the window's end: walked in, stopped
        #expect(result.decisions[1].ts == (try RFC3339.parse("2026-11-22T08:29:30Z")))          // exit − 30 s
    }

    @Test func samplesOfOneInstantAreOneRangingCallback() throws {
        let trace = "t,uuid,major,minor,rssi\n5,\(Self.uuid),1,1,-60\n5,\(Self.uuid),1,2,-70\n5,\(Self.uuid),2,1,0\n6,\(Self.uuid),1,1,-61\n"
        let parsed = try ReplayTrace.parse(trace)
        #expect(parsed.rows.count == 2)
        guard case .ranging(_, let samples, let line) = parsed.rows[0] else { Issue.record("expected a ranging row"); return }
        #expect(samples.count == 3)
        #expect(line == 2)
    }

    @Test(arguments: [
        ("t,uuid,major,minor,rssi\n0,\(uuid),1,100,-6o\n", 2, "rssi", "-6o"),
        ("t,uuid,major,minor,rssi\n0,\(uuid),1,100,-60\n1,not-a-uuid,1,100,-60\n", 3, "uuid", "not-a-uuid"),
        ("t,uuid,major,minor,rssi\n0,\(uuid),70000,1,-60\n", 2, "major", "70000"),
        ("t,uuid,major,minor,rssi\n0,\(uuid),1,-1,-60\n", 2, "minor", "-1"),
        ("t,uuid,major,minor,rssi\n0,\(uuid),1,1,12\n", 2, "rssi", "12"),
        ("t,uuid,major,minor,rssi\nyesterday,\(uuid),1,1,-60\n", 2, "t", "yesterday"),
        ("t,uuid,major,minor,rssi\n5,\(uuid),1,1,-60\n4,\(uuid),1,1,-60\n", 3, "t", "4"),
        ("t,uuid,major,minor,rssi\n0,\(uuid),1,1\n", 2, "row", "0,\(uuid),1,1"),
        ("t,uuid,major,minor,rssi\n0,event,teleport\n", 2, "event", "teleport"),
        ("t,uuid,major,minor,rssi\n0,event,enter:x\n", 2, "event", "enter:x"),
        ("t,uuid,major,minor,rssi\n0,event,manualCheckIn@soon:3:late\n", 2, "event", "manualCheckIn@soon:3:late"),
        ("t,uuid,major,rssi\n", 1, "header", "t,uuid,major,rssi"),
    ])
    func aMalformedRowIsNamedByLineColumnAndValue(text: String, line: Int, column: String, value: String) {
        #expect {
            try ReplayTrace.parse(text)
        } throws: { error in
            guard let error = error as? TraceError else { return false }
            return error.line == line && error.column == column && error.value == value && !error.expected.isEmpty
        }
    }

    @Test func theWriterProducesRowsTheParserReadsBack() throws {
        let time = Date(timeIntervalSince1970: 1_795_338_000.5)
        let samples = [BeaconSample(beacon: BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 3, minor: 9), rssi: -67),
                       BeaconSample(beacon: BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 3, minor: 10), rssi: 0)]
        let events: [TraceEvent] = [.region(.exit, major: 3), .launch(.afterReboot), .manualCheckOut(major: 3, reason: "home"),
                                    .bluetooth(.poweredOff), .motion(.walking), .geofence(entered: true, major: 3),
                                    .manualCheckIn(major: 3, reason: "sat down: at 9", secondsBefore: 420),
                                    .manualCheckOut(major: nil, reason: "on the bus", secondsBefore: 90)]
        let text = ([ReplayTrace.header] + TraceWriter.rows(for: samples, at: time) + events.map { TraceWriter.row(for: $0, at: time) })
            .joined(separator: "\n")
        let parsed = try ReplayTrace.parse(text)
        #expect(parsed.rows.first == .ranging(at: time, samples: samples, line: 2))
        let parsedEvents = parsed.rows.compactMap { row -> TraceEvent? in
            if case .event(_, let event, _) = row { return event } else { return nil }
        }
        #expect(parsedEvents == events)
    }

    /// The writer formats each UUID once per call: samples of several UUIDs in one callback, in
    /// any order, each keep their own.
    @Test func eachSampleRowNamesItsOwnUUID() throws {
        let time = Date(timeIntervalSince1970: 1_795_338_000)
        let other = try #require(UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        let uuids = [SiteBeacon.defaultUUID, other, other, SiteBeacon.defaultUUID]
        let samples = uuids.enumerated().map { index, uuid in
            BeaconSample(beacon: BeaconIdentity(uuid: uuid, major: 3, minor: UInt16(index)), rssi: -60 - index)
        }
        let rows = TraceWriter.rows(for: samples, at: time)
        #expect(rows == uuids.enumerated().map { index, uuid in
            "2026-11-22T09:00:00Z,\(uuid.uuidString),3,\(index),\(-60 - index)"
        })
        // The parser reads them back as one callback per run of a UUID, every sample its own.
        let parsed = try ReplayTrace.parse(([ReplayTrace.header] + rows).joined(separator: "\n"))
        let read = parsed.rows.flatMap { row -> [BeaconSample] in
            if case .ranging(_, let samples, _) = row { return samples } else { return [] }
        }
        #expect(read == samples)
    }
}
