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
        let enrollment = try Self.decode(Components.Schemas.Enrollment.self, raw, answer: "the enrollment answer")
        guard !enrollment.deviceToken.isEmpty else {
            throw .invalidAnswer("the enrollment answer's 'deviceToken' is empty")
        }
        let configuration = try Self.configuration(enrollment.config)
        return EnrolledDevice(
            serverURL: serverURL, deviceID: DeviceID(enrollment.deviceId), userID: UserID(enrollment.userId),
            deviceToken: enrollment.deviceToken, configuration: configuration)
    }

    /// The current remote configuration for an enrolled device: its identity, the sites and the beacon
    /// calibrations, over the engine's defaults (`RemoteConfiguration`).
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
        let config = try Self.decode(Components.Schemas.DeviceConfig.self, raw, answer: "the configuration")
        return try Self.configuration(config)
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

    /// The engine configuration the contract's `DeviceConfig` describes (`RemoteConfiguration`), or
    /// why it is refused: the field, its value, what was expected.
    private static func configuration(
        _ config: Components.Schemas.DeviceConfig
    ) throws(EnrollmentError) -> AttendanceEngine.Configuration {
        do { return try RemoteConfiguration.configuration(config) } catch {
            throw .invalidAnswer("the remote configuration was refused: \(error)")
        }
    }

    /// An answer's body as the contract's type; a body that isn't one is refused naming the field
    /// (a wrong type, a missing field, a field the closed `DeviceConfig` does not have).
    private static func decode<Value: Decodable>(
        _ type: Value.Type, _ raw: RawAnswer, answer: String
    ) throws(EnrollmentError) -> Value {
        do { return try ContractCoding.decode(type, from: raw.body) } catch let error as DecodingError {
            throw .invalidAnswer(describe(error, in: answer))
        } catch {
            throw .invalidAnswer("\(answer) could not be read: \(error)")
        }
    }

    /// A decoding error as one sentence naming the field as the JSON spells it (`config.sites[0].major`).
    private static func describe(_ error: DecodingError, in answer: String) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce(into: "") { path, key in
                if let index = key.intValue {
                    path += "[\(index)]"
                } else {
                    path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
        }
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            return field.isEmpty
                ? "\(answer) is not a JSON object" : "\(answer)'s '\(field)' has the wrong type; expected \(type)"
        case .keyNotFound(let key, let context):
            return "\(answer) lacks '\(path(context.codingPath + [key]))'"
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            if field.isEmpty { return "\(answer) is not JSON (\(context.debugDescription))" }
            // OpenAPIRuntime's words for a key a closed schema (`additionalProperties: false`) lacks.
            if context.debugDescription.hasPrefix("Additional properties are disabled") {
                return "\(answer)'s '\(field)' is not a field of the contract"
            }
            return "\(answer)'s '\(field)' could not be read: \(context.debugDescription)"
        @unknown default:
            return "\(answer) could not be read: \(error)"
        }
    }
}
