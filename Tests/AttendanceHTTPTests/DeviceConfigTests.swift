import AttendanceServer
import AttendanceServerTestSupport
import Foundation
import Testing

@testable import AttendanceHTTP

/// The remote configuration on the wire: the contract's closed `DeviceConfig`, in the enrollment
/// answer and in `GET /v1/config`, with the keys and value types the device has always read.
@Suite struct DeviceConfigTests {
    static let uuid = "FDA50693-0000-0000-0000-290995101092"

    @Test(arguments: Backend.allCases) func theConfigIsTheClosedContractTypeWithSitesAndCalibrations(
        backend: Backend
    ) async throws {
        let live = try await LiveServer.start(try await backend.makeRepository())
        let fenced = try await live.send(
            "POST", "/v1/admin/sites",
            json: [
                "name": "HQ", "timeZone": "Europe/Berlin", "beaconUUID": Self.uuid, "major": 1,
                "geofence": ["latitude": 52.52, "longitude": 13.405, "radiusMeters": 150],
            ])
        let hq = try #require(fenced.json["siteId"] as? String)
        _ = try await live.send("POST", "/v1/admin/sites/\(hq)/beacons", json: ["minor": 3, "txPowerDBm": -61.5])
        _ = try await live.send("POST", "/v1/admin/sites/\(hq)/beacons", json: ["minor": 4])
        let depot = try #require(
            try await live.send(
                "POST", "/v1/admin/sites",
                json: ["name": "Depot", "timeZone": "Europe/Berlin", "beaconUUID": Self.uuid, "major": 2]
            ).json["siteId"] as? String)
        let ada = try await live.enrollEmployee(name: "Ada", major: 1)

        let answer = try await live.send("GET", "/v1/config", token: ada.token)
        #expect(answer.status == 200)
        let config = try Wire.decode(Components.Schemas.DeviceConfig.self, from: answer.body)
        #expect(config.userID == ada.userId && config.deviceID == ada.deviceId)
        let sites = config.sites.sorted { $0.major < $1.major }
        #expect(sites.map(\.siteID) == [hq, depot])
        #expect(sites.map(\.name) == ["HQ", "Depot"])
        #expect(sites.allSatisfy { $0.uuid == Self.uuid })
        #expect(sites[0].geofence == .init(latitude: 52.52, longitude: 13.405, radiusMeters: 150))
        #expect(sites[1].geofence == nil)
        // Only the beacon with a measured power is a calibration.
        #expect(config.beaconCalibrations == [.init(uuid: Self.uuid, major: 1, minor: 3, txPowerDBm: -61.5)])

        // The keys and value types of the engine's `Configuration`, as before the contract closed.
        let object = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
        #expect(Set(object.keys) == ["userID", "deviceID", "sites", "beaconCalibrations"])
        let fencedSite = try #require((object["sites"] as? [[String: Any]])?.first { $0["major"] as? Int == 1 })
        #expect(Set(fencedSite.keys) == ["siteID", "name", "uuid", "major", "geofence"])
        let geofence = try #require(fencedSite["geofence"] as? [String: Any])
        #expect(Set(geofence.keys) == ["latitude", "longitude", "radiusMeters"])
        #expect(geofence["latitude"] as? Double == 52.52 && geofence["radiusMeters"] as? Double == 150)
        let calibration = try #require((object["beaconCalibrations"] as? [[String: Any]])?.first)
        #expect(Set(calibration.keys) == ["uuid", "major", "minor", "txPowerDBm"])
        #expect(calibration["txPowerDBm"] as? Double == -61.5 && calibration["minor"] as? Int == 3)

        // The contract is closed: a key it doesn't name is not a `DeviceConfig`.
        var extended = object
        extended["softExitGraceSeconds"] = 120
        let extendedBody = try JSONSerialization.data(withJSONObject: extended)
        #expect(throws: DecodingError.self) {
            try Wire.decode(Components.Schemas.DeviceConfig.self, from: extendedBody)
        }

        // Enrollment answers with the same configuration.
        let code = try #require(
            try await live.send("POST", "/v1/admin/enrollment-codes", json: ["userId": ada.userId]).json["code"]
                as? String)
        let enrolled = try await live.send(
            "POST", "/v1/devices/enroll", token: nil, json: ["code": code, "platform": "ios"])
        #expect(enrolled.status == 201)
        let enrollment = try Wire.decode(Components.Schemas.Enrollment.self, from: enrolled.body)
        #expect(enrollment.config.deviceID == enrollment.deviceId && enrollment.config.userID == ada.userId)
        #expect(Set(enrollment.config.sites.map(\.siteID)) == [hq, depot])
        #expect(enrollment.config.beaconCalibrations == config.beaconCalibrations)
        try await live.stop()
    }
}
