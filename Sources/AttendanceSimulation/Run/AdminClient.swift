import AttendanceModels
import Foundation
import HTTPTypes

/// The admin side of the server's HTTP API, as the simulator uses it: sites, employees,
/// enrollment of each simulated phone, and the sessions recorded at the end.
struct AdminClient: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let link: any ServerLink
    let adminToken: String

    init(link: any ServerLink, adminToken: String) {
        self.link = link
        self.adminToken = adminToken
    }

    /// The server's site ids for the world's sites, creating the missing ones.
    func ensureSites(_ world: WorldSpec) async throws -> [SiteBeacon: SiteID] {
        var ids: [SiteBeacon: SiteID] = [:]
        var existing = try await call("GET", "/v1/admin/sites", expect: 200) as? [[String: Any]] ?? []
        for site in world.sites {
            let beacon = Simulation.siteBeacon(site)
            if let found = existing.first(where: { ($0["beaconUUID"] as? String)?.uppercased() == beacon.uuid.uuidString && $0["major"] as? Int == Int(site.major) }),
               let id = found["siteId"] as? String {
                ids[beacon] = SiteID(id)
                continue
            }
            let created = try await call("POST", "/v1/admin/sites", body: ["name": "simulated \(site.id)", "timeZone": "UTC",
                                                                           "beaconUUID": beacon.uuid.uuidString, "major": Int(site.major)], expect: 201)
            guard let id = (created as? [String: Any])?["siteId"] as? String else { throw Failure(description: "creating site \(site.id): no siteId in the answer") }
            for placed in site.installedBeacons {
                _ = try await call("POST", "/v1/admin/sites/\(id)/beacons", body: ["minor": Int(placed.minor), "txPowerDBm": placed.measuredPowerDBm], expect: 201)
            }
            ids[beacon] = SiteID(id)
            existing.append(["siteId": id, "beaconUUID": beacon.uuid.uuidString, "major": Int(site.major)])
        }
        return ids
    }

    /// A new employee and an enrolled device for them.
    func enroll(name: String, platform: String) async throws -> PhoneAccount {
        let employee = try await call("POST", "/v1/admin/employees", body: ["name": name], expect: 201) as? [String: Any]
        guard let userID = employee?["userId"] as? String else { throw Failure(description: "creating employee '\(name)': no userId in the answer") }
        let code = try await call("POST", "/v1/admin/enrollment-codes", body: ["userId": userID], expect: 201) as? [String: Any]
        guard let text = code?["code"] as? String else { throw Failure(description: "enrollment code for \(userID): no code in the answer") }
        let enrollment = try await call("POST", "/v1/devices/enroll", body: ["code": text, "platform": platform, "deviceName": name], token: nil, expect: 201)
            as? [String: Any]
        guard let deviceID = enrollment?["deviceId"] as? String, let token = enrollment?["deviceToken"] as? String else {
            throw Failure(description: "enrolling \(userID): no deviceId or deviceToken in the answer")
        }
        return PhoneAccount(userID: UserID(userID), deviceID: DeviceID(deviceID), token: token)
    }

    /// One employee's sessions, every page.
    func sessions(of user: UserID) async throws -> [[String: Any]] {
        var items: [[String: Any]] = []
        var cursor: String?
        repeat {
            var path = "/v1/admin/sessions?limit=500&userId=\(user.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? user.rawValue)"
            if let cursor { path += "&cursor=\(cursor.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? cursor)" }
            let page = try await call("GET", path, expect: 200) as? [String: Any]
            items += page?["items"] as? [[String: Any]] ?? []
            cursor = page?["nextCursor"] as? String
        } while cursor != nil
        return items
    }

    private func call(_ method: String, _ path: String, body: [String: Any]? = nil, token: String?? = .none, expect status: Int) async throws -> Any {
        var request = HTTPRequest(method: HTTPRequest.Method(method) ?? .get, scheme: nil, authority: nil, path: path)
        if let bearer = token ?? adminToken { request.headerFields[.authorization] = "Bearer \(bearer)" }
        var data: Data?
        if let body {
            data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
            request.headerFields[.contentType] = "application/json"
        }
        let (response, answer) = try await link.exchange(request, body: data)
        guard response.status.code == status else {
            throw Failure(description: "\(method) \(path) answered HTTP \(response.status.code), expected \(status): "
                + String(decoding: answer.prefix(300), as: UTF8.self))
        }
        return try JSONSerialization.jsonObject(with: answer)
    }
}
