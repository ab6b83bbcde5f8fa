import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

@Suite struct ConfigurationTests {
    @Test func theDefaultsAreTheDocumentedOnes() {
        let configuration = Configuration()
        #expect(configuration.proximityUUID.uuidString == "FDA50693-0000-0000-0000-290995101092")
        #expect(configuration.rangingWindowMaxSeconds == 8)
        #expect(configuration.earlyConfirmMinSamples == 4)
        #expect(configuration.earlyConfirmMaxStdevDB == 6)
        #expect(configuration.earlyConfirmMinMedianDBm == -70)
        #expect(configuration.windowEndConfirmMinMedianDBm == -65)
        #expect(configuration.txPowerDBm == -59)
        #expect(configuration.pathLossExponent == 2.0)
        #expect(configuration.softExitGraceSeconds > 10)
        #expect(configuration.mergeWindowSeconds >= configuration.softExitGraceSeconds)
        #expect(configuration.validationErrors().isEmpty)
    }

    @Test func aPartialFileKeepsDefaultsForTheRest() throws {
        let json = #"{"softExitGraceSeconds": 120, "sites": [{"major": 3, "name": "Depot"}], "walkingConfirmMinMedianDBm": -127}"#
        let configuration = try Configuration.decode(json: Data(json.utf8))
        #expect(configuration.softExitGraceSeconds == 120)
        #expect(configuration.sites == [SiteConfiguration(name: "Depot", major: 3)])
        #expect(configuration.walkingConfirmMinMedianDBm == -127)
        #expect(configuration.mergeWindowSeconds == Configuration().mergeWindowSeconds)
    }

    @Test func encodingRoundTrips() throws {
        var configuration = Configuration()
        configuration.walkingConfirmMinMedianDBm = -127
        configuration.sites = [SiteConfiguration(siteID: "hq", name: "HQ", major: 9)]
        configuration.beaconCalibrations = [BeaconCalibration(major: 2, minor: 5, txPowerDBm: -62)]
        configuration.regionMonitoring = .uuidWide
        let data = try JSONEncoder().encode(configuration)
        #expect(try Configuration.decode(json: data) == configuration)
    }

    @Test func theKnownKeysAreEveryProperty() {
        #expect(Configuration.knownKeys.count == 42)
        #expect(Configuration.knownKeys.contains("followUpWithoutEvidenceElsewhereWindows"))
        #expect(Configuration.knownKeys.contains("stayedPutRangingSeconds"))
        #expect(Configuration.knownKeys.contains("heartbeatHoldSeconds"))
        #expect(Configuration.knownKeys.contains("arrivalReminders"))
        #expect(["dwellMinSupportFraction", "dwellContestedSupportFraction", "resumeReminderHours", "resumeReminderCount", "manualBackdateMaxMinutes"].allSatisfy(Configuration.knownKeys.contains))
        #expect(["dwellContinuousSeconds", "backgroundLocationMaxSeconds", "departureMotionLookbackMinutes", "walkingConfirmNeedsStop"].allSatisfy(Configuration.knownKeys.contains))
        #expect(Configuration.knownKeys.contains("dwellConfirmSeconds") && Configuration.knownKeys.contains("followUpWindows"))
        #expect(Configuration.knownKeys.contains("walkingConfirmMinMedianDBm"))
        #expect(Configuration.knownKeys.contains("sites"))
    }

    @Test func notAnObjectIsAClearError() {
        #expect {
            try Configuration.decode(json: Data("[1, 2]".utf8))
        } throws: { error in
            (error as? ConfigurationError)?.value == "not a JSON object"
        }
    }

    @Test func anUnknownKeyIsNamed() {
        #expect {
            try Configuration.decode(json: Data(#"{"softExitGraceSecond": 120}"#.utf8))
        } throws: { error in
            (error as? ConfigurationError)?.field == "softExitGraceSecond"
        }
    }

    @Test func aWrongTypeNamesTheField() {
        #expect {
            try Configuration.decode(json: Data(#"{"mergeWindowSeconds": "ten minutes"}"#.utf8))
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.field == "mergeWindowSeconds" && error.expected.contains("Double")
        }
    }

    @Test func validationNamesFieldValueAndExpectation() {
        var configuration = Configuration()
        configuration.softExitGraceSeconds = 5
        configuration.mergeWindowSeconds = 2
        configuration.sites = [SiteConfiguration(major: 1), SiteConfiguration(major: 1)]
        let errors = configuration.validationErrors()
        #expect(errors.map(\.field) == ["softExitGraceSeconds", "mergeWindowSeconds", "sites[1].major"])
        #expect(errors[0].description == "configuration field 'softExitGraceSeconds' is 5.0; expected seconds ≥ 10 (dropouts shorter than 10 s must never check out)")
        #expect(errors[1].expected.contains("softExitGraceSeconds (5.0)"))
    }

    @Test func aHeartbeatHoldOutsideItsRangeIsRefusedByName() {
        #expect {
            try Configuration.decode(json: Data(#"{"heartbeatHoldSeconds": -1}"#.utf8))
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.field == "heartbeatHoldSeconds" && error.value == "-1.0" && error.expected.contains("14400")
        }
        #expect(Configuration().heartbeatHoldSeconds == 1_800)
    }

    /// The server sends each site's campus geofence; the engine keeps it and checks its range.
    @Test func aSitesGeofenceIsDecodedAndItsRangeChecked() throws {
        let json = #"{"sites": [{"major": 7, "name": "HQ", "geofence": {"latitude": 52.52, "longitude": 13.405, "radiusMeters": 150}}]}"#
        let configuration = try Configuration.decode(json: Data(json.utf8))
        #expect(configuration.sites.first?.geofence == Geofence(latitude: 52.52, longitude: 13.405, radiusMeters: 150))
        #expect {
            try Configuration.decode(json: Data(#"{"sites": [{"major": 7, "geofence": {"latitude": 95, "longitude": 13, "radiusMeters": 150}}]}"#.utf8))
        } throws: { error in
            (error as? ConfigurationError)?.field == "sites[0].geofence.latitude"
        }
        #expect {
            try Configuration.decode(json: Data(#"{"sites": [{"major": 7, "geofence": {"latitude": 52, "longitude": 13, "radiusMeters": 0}}]}"#.utf8))
        } throws: { error in
            (error as? ConfigurationError)?.description.contains("radiusMeters' is 0.0") == true
        }
    }
}
