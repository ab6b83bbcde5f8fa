import AttendanceEngine
import AttendanceModels
import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A device enrolled with a server: who it is, the token it authenticates with (kept in the
/// Keychain on iOS; the server stores only its hash), and the engine configuration it was given.
public struct EnrolledDevice: Hashable, Sendable {
    public var serverURL: URL
    public var deviceID: DeviceID
    public var userID: UserID
    public var deviceToken: String
    public var configuration: AttendanceEngine.Configuration

    public init(
        serverURL: URL, deviceID: DeviceID, userID: UserID, deviceToken: String,
        configuration: AttendanceEngine.Configuration
    ) {
        self.serverURL = serverURL
        self.deviceID = deviceID
        self.userID = userID
        self.deviceToken = deviceToken
        self.configuration = configuration
    }
}

/// Why enrolling or fetching the configuration failed, worded for the employee's screen.
public enum EnrollmentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 410: the code was used already or has expired; ask HR for a new one.
    case codeUsedOrExpired(detail: String)
    /// 400, 404 or 422 on enrollment: the server does not know the code (422), or refused the request.
    case codeRefused(detail: String)
    /// 401 on the config: the device token was revoked.
    case deviceRevoked(detail: String)
    /// Any other answer, with its status and the server's problem detail.
    case server(status: Int, detail: String)
    /// Nothing came back (offline, wrong host, TLS).
    case unreachable(String)
    /// The server answered something the app cannot use.
    case invalidAnswer(String)

    public var description: String {
        switch self {
        case .codeUsedOrExpired(let detail):
            "This enrollment code was already used or has expired (\(detail)). Ask your administrator for a new one."
        case .codeRefused(let detail): "The server refused this enrollment code (\(detail)). Check it for typos."
        case .deviceRevoked(let detail):
            "This phone's enrollment was revoked (\(detail)). Enroll again with a new code."
        case .server(let status, let detail): "The server answered HTTP \(status): \(detail)"
        case .unreachable(let reason): "Could not reach the server: \(reason)"
        case .invalidAnswer(let reason): "The server's answer could not be used: \(reason)"
        }
    }
}

/// `POST /v1/devices/enroll` and `GET /v1/config`, with the client generated from openapi.yaml.
public struct EnrollmentClient: Sendable {
    public let serverURL: URL
    public let timeoutSeconds: Double
    private let transport: any ClientTransport
    private let traffic: TrafficMeter?
    /// The phone's clock, sent in each request's `Date` header.
    private let clock: any AttendanceClock

    public init(serverURL: URL, clock: any AttendanceClock, timeoutSeconds: Double = 15, session: URLSession? = nil) {
        let urlSession = session ?? HTTPUploader.ephemeralSession(timeoutSeconds: timeoutSeconds)
        self.init(
            serverURL: serverURL, clock: clock,
            transport: URLSessionTransport(configuration: .init(session: urlSession)), timeoutSeconds: timeoutSeconds)
    }

    /// The same client over another transport (the simulator's), its bytes counted in `traffic`.
    public init(
        serverURL: URL, clock: any AttendanceClock, transport: any ClientTransport,
        traffic: TrafficMeter? = nil, timeoutSeconds: Double = 15
    ) {
        self.serverURL = HTTPUploader.serverURL(serverURL)
        self.clock = clock
        self.timeoutSeconds = timeoutSeconds
        self.transport = transport
        self.traffic = traffic
    }

    private func client(token: String?) -> Client {
        let counters: [any ClientMiddleware] = traffic.map { [TrafficCounter(meter: $0)] } ?? []
        return Client(
            serverURL: serverURL, configuration: ContractCoding.configuration, transport: transport,
            middlewares: [DeviceHeaders(token: token, clock: clock), ResponseRecorder()] + counters)
    }

    /// Exchanges a one-time code (as typed; the server ignores case, spaces and dashes) for a
    /// device token and the engine configuration.
    public func enroll(
        code: String, platform: String = HTTPUploader.currentPlatform, deviceName: String?, appVersion: String?
    )
        async throws(EnrollmentError) -> EnrolledDevice
    {
        let body = Components.Schemas.EnrollmentRequest(
            code: code, platform: platform, deviceName: deviceName, appVersion: appVersion)
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client(token: nil).enrollDevice(body: .json(body))
        }
        let raw = try Self.answered(answer)
        switch raw.status {
        case 201: break
        case 410: throw .codeUsedOrExpired(detail: Self.detail(raw))
        case 400, 404, 422: throw .codeRefused(detail: Self.detail(raw))
        default: throw .server(status: raw.status, detail: Self.detail(raw))
        }
        guard let object = (try? JSONSerialization.jsonObject(with: raw.body)) as? [String: Any] else {
            throw .invalidAnswer("the enrollment answer is not a JSON object")
        }
        guard let deviceID = object["deviceId"] as? String, let userID = object["userId"] as? String,
            let token = object["deviceToken"] as? String, !token.isEmpty
        else {
            throw .invalidAnswer("the enrollment answer lacks deviceId, userId or deviceToken")
        }
        let configuration = try Self.configuration(from: object["config"] ?? [String: Any]())
        return EnrolledDevice(
            serverURL: serverURL, deviceID: DeviceID(deviceID), userID: UserID(userID), deviceToken: token,
            configuration: configuration)
    }

    /// The current remote configuration for an enrolled device (sites, calibrations, thresholds).
    public func configuration(token: String) async throws(EnrollmentError) -> AttendanceEngine.Configuration {
        let answer = await Exchange.run(timeoutSeconds: timeoutSeconds) {
            try await client(token: token).getDeviceConfig()
        }
        let raw = try Self.answered(answer)
        switch raw.status {
        case 200: break
        case 401: throw .deviceRevoked(detail: Self.detail(raw))
        default: throw .server(status: raw.status, detail: Self.detail(raw))
        }
        guard let object = try? JSONSerialization.jsonObject(with: raw.body) else {
            throw .invalidAnswer("the configuration is not JSON")
        }
        return try Self.configuration(from: object)
    }

    private static func answered<Output>(_ answer: Exchange<Output>) throws(EnrollmentError) -> RawAnswer {
        switch answer {
        case .failure(let reason): throw .unreachable(reason)
        case .answered(let raw, _): return raw
        }
    }

    private static func detail(_ raw: RawAnswer) -> String {
        ResponseClassifier.problemSummary(raw.body) ?? "no detail"
    }

    /// The engine's strict decoder: an unknown key or a bad value names the field.
    private static func configuration(from object: Any) throws(EnrollmentError) -> AttendanceEngine.Configuration {
        do {
            let data = try JSONSerialization.data(withJSONObject: object)
            return try AttendanceEngine.Configuration.decode(json: data)
        } catch let error as ConfigurationError {
            throw .invalidAnswer("the remote configuration was refused: \(error)")
        } catch {
            throw .invalidAnswer("the remote configuration is not a JSON object: \(error)")
        }
    }
}
