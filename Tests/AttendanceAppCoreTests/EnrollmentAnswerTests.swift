import AttendanceEngine
import AttendanceHTTP
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceServerTestSupport
import AttendanceStorage
import AttendanceSync
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// The enrollment answer and the remote configuration on the device: the contract's types
/// decoded, mapped onto the engine's defaults, and anything else refused naming the field.
@Suite struct EnrollmentAnswerTests {
    /// Answers every request with one status and body.
    struct CannedServer: ClientTransport {
        let status: HTTPResponse.Status
        let body: String

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
            HTTPResponse, HTTPBody?
        ) {
            var response = HTTPResponse(status: status)
            response.headerFields[.contentType] = "application/json"
            return (response, HTTPBody(self.body))
        }
    }

    static let uuid = "FDA50693-0000-0000-0000-290995101092"
    static let site = #"{"siteID": "hq", "name": "HQ", "uuid": "\#(uuid)", "major": 1}"#
    static let calibration = #"{"uuid": "\#(uuid)", "major": 1, "minor": 3, "txPowerDBm": -61.5}"#

    static func config(sites: String = "[\(site)]", calibrations: String = "[\(calibration)]", extra: String = "")
        -> String
    {
        #"{"userID": "alice", "deviceID": "d-1", "sites": \#(sites), "beaconCalibrations": \#(calibrations)\#(extra)}"#
    }

    static func client(_ status: HTTPResponse.Status, _ body: String) -> EnrollmentClient {
        EnrollmentClient(
            serverURL: URL(string: "http://127.0.0.1:9")!, clock: SystemClock(),
            transport: CannedServer(status: status, body: body))
    }

    /// Why the configuration answer `body` was refused.
    static func refusal(ofConfig body: String) async -> String? {
        do {
            _ = try await client(.ok, body).configuration(token: "t")
            return nil
        } catch .invalidAnswer(let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    /// Why the enrollment answer `body` was refused.
    static func refusal(ofEnrollment body: String) async -> String? {
        do {
            _ = try await client(.created, body).enroll(code: "AAAAA-AAAAA", deviceName: nil, appVersion: nil)
            return nil
        } catch .invalidAnswer(let reason) {
            return reason
        } catch {
            return "\(error)"
        }
    }

    @Test func theServersSitesAndCalibrationsGoOverTheEngineDefaults() async throws {
        let fenced =
            #"{"siteID": "hq", "name": "HQ", "uuid": "\#(Self.uuid)", "major": 1, "#
            + #""geofence": {"latitude": 52.52, "longitude": 13.405, "radiusMeters": 150}}"#
        let depot =
            #"{"siteID": "depot", "name": "Depot", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 2}"#
        let configuration = try await Self.client(.ok, Self.config(sites: "[\(fenced), \(depot)]"))
            .configuration(token: "t")
        var expected = AttendanceEngine.Configuration()
        expected.userID = "alice"
        expected.deviceID = "d-1"
        expected.sites = [
            SiteConfiguration(
                siteID: "hq", name: "HQ", uuid: UUID(uuidString: Self.uuid), major: 1,
                geofence: Geofence(latitude: 52.52, longitude: 13.405, radiusMeters: 150)),
            SiteConfiguration(
                siteID: "depot", name: "Depot", uuid: UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"),
                major: 2),
        ]
        expected.beaconCalibrations = [
            BeaconCalibration(uuid: UUID(uuidString: Self.uuid), major: 1, minor: 3, txPowerDBm: -61.5)
        ]
        #expect(configuration == expected)

        let enrolled = try await Self.client(.created, Self.enrollment())
            .enroll(code: "AAAAA-AAAAA", deviceName: nil, appVersion: nil)
        #expect(enrolled.deviceID == "d-1" && enrolled.userID == "alice" && enrolled.deviceToken == "tok")
        #expect(enrolled.configuration.sites.map(\.siteID) == ["hq"])
        #expect(enrolled.configuration.softExitGraceSeconds == expected.softExitGraceSeconds)
    }

    /// The enrollment answer around `config`.
    static func enrollment(
        token: String = #""deviceToken": "tok", "#, config: String = EnrollmentAnswerTests.config()
    ) -> String {
        #"{"deviceId": "d-1", "userId": "alice", \#(token)"config": \#(config)}"#
    }

    /// The configuration with one site whose fields are `fields`.
    static func config(site fields: String) -> String {
        config(sites: #"[{"siteID": "hq", "name": "HQ", \#(fields)}]"#)
    }

    @Test func aKeyTheContractDoesNotHaveIsRefusedNamingIt() async {
        let threshold = await Self.refusal(ofConfig: Self.config(extra: #", "softExitGraceSeconds": 120"#))
        #expect(threshold == "the configuration's 'softExitGraceSeconds' is not a field of the contract")
        let inSite = await Self.refusal(
            ofConfig: Self.config(site: #""uuid": "\#(Self.uuid)", "major": 1, "floor": 2"#))
        #expect(inSite == "the configuration's 'sites[0].floor' is not a field of the contract")
        let enrollment = await Self.refusal(ofEnrollment: Self.enrollment(config: Self.config(extra: #", "x": 1"#)))
        #expect(enrollment == "the enrollment answer's 'config.x' is not a field of the contract")
    }

    @Test func aWrongTypeOrAMissingFieldIsRefusedNamingIt() async {
        let major = await Self.refusal(ofConfig: Self.config(site: #""uuid": "\#(Self.uuid)", "major": "one""#))
        #expect(major == "the configuration's 'sites[0].major' has the wrong type; expected Int")
        let power = await Self.refusal(
            ofConfig: Self.config(calibrations: #"[{"uuid": "u", "major": 1, "minor": 3, "txPowerDBm": "-61"}]"#))
        #expect(power == "the configuration's 'beaconCalibrations[0].txPowerDBm' has the wrong type; expected Double")
        let noDevice = await Self.refusal(ofConfig: #"{"userID": "alice", "sites": [], "beaconCalibrations": []}"#)
        #expect(noDevice == "the configuration lacks 'deviceID'")
        #expect(await Self.refusal(ofConfig: "[]") == "the configuration is not a JSON object")

        let user = await Self.refusal(
            ofEnrollment: Self.enrollment(
                config: Self.config().replacingOccurrences(of: #""userID": "alice""#, with: #""userID": 7"#)))
        #expect(user == "the enrollment answer's 'config.userID' has the wrong type; expected String")
        let noToken = await Self.refusal(ofEnrollment: Self.enrollment(token: ""))
        #expect(noToken == "the enrollment answer lacks 'deviceToken'")
        let empty = await Self.refusal(ofEnrollment: Self.enrollment(token: #""deviceToken": "", "#))
        #expect(empty == "the enrollment answer's 'deviceToken' is empty")
    }

    @Test func aValueTheEngineCannotUseIsRefusedNamingIt() async {
        let refused = "the remote configuration was refused: configuration field"
        let uuid = await Self.refusal(ofConfig: Self.config(site: #""uuid": "not-a-uuid", "major": 1"#))
        #expect(uuid?.hasPrefix("\(refused) 'sites[0].uuid' is 'not-a-uuid'; expected a UUID") == true)
        let major = await Self.refusal(ofConfig: Self.config(site: #""uuid": "\#(Self.uuid)", "major": 70000"#))
        #expect(major == "\(refused) 'sites[0].major' is 70000; expected an integer from 0 to 65535")
        // The engine's own rules (validationErrors) apply to what the server sent.
        let fence = await Self.refusal(
            ofConfig: Self.config(
                site: #""uuid": "\#(Self.uuid)", "major": 1, "#
                    + #""geofence": {"latitude": 95, "longitude": 13, "radiusMeters": 150}"#))
        #expect(fence?.hasPrefix("\(refused) 'sites[0].geofence.latitude' is 95.0") == true)
        let twice = await Self.refusal(ofConfig: Self.config(sites: "[\(Self.site), \(Self.site)]"))
        #expect(twice?.hasPrefix("\(refused) 'sites[1].major' is 1") == true)
    }

    /// The real server's answer through the device's mapping: what the server fills in arrives.
    @Test func theRealServersConfigurationReachesTheEngine() async throws {
        let repository = try await Backend.sqlite.makeRepository()
        let admin = AdminService(repository: repository, environment: .live)
        let site = try await admin.createSite(
            AdminService.SiteInput(
                name: "HQ", timeZone: "Europe/Berlin", beaconUUID: Self.uuid, major: 1,
                geofence: Geofence(latitude: 52.52, longitude: 13.405, radiusMeters: 150)))
        _ = try await admin.createBeacon(siteId: site.id, minor: 3, label: nil, txPowerDBm: -61)
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"))
        let http = try await RunningServer.start(repository: repository, environment: .live)
        defer { Task { try? await http.stop() } }
        let code = try await AuthService(repository: repository, environment: .live).issueEnrollmentCode(for: "alice")
            .code
        let client = EnrollmentClient(serverURL: http.baseURL, clock: SystemClock(), timeoutSeconds: 30)
        let enrolled = try await client.enroll(code: code, deviceName: nil, appVersion: nil)
        let configuration = enrolled.configuration
        #expect(configuration.userID == "alice" && configuration.deviceID == enrolled.deviceID)
        #expect(
            configuration.sites == [
                SiteConfiguration(
                    siteID: site.id, name: "HQ", uuid: UUID(uuidString: Self.uuid), major: 1,
                    geofence: Geofence(latitude: 52.52, longitude: 13.405, radiusMeters: 150))
            ])
        #expect(
            configuration.beaconCalibrations == [
                BeaconCalibration(uuid: UUID(uuidString: Self.uuid), major: 1, minor: 3, txPowerDBm: -61)
            ])
        #expect(try await client.configuration(token: enrolled.deviceToken) == configuration)
    }
}
