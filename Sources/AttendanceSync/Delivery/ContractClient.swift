import AttendanceModels
import Foundation
import HTTPTypes
import OpenAPIRuntime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The generated client's coding: RFC 3339 times exactly as the engine writes them, sorted keys.
enum ContractCoding {
    struct RFC3339Transcoder: DateTranscoder {
        func encode(_ date: Date) throws -> String { RFC3339.format(date) }
        func decode(_ text: String) throws -> Date { try RFC3339.parse(text) }
    }

    static let configuration = Configuration(
        dateTranscoder: RFC3339Transcoder(), jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            try RFC3339.parse(try decoder.singleValueContainer().decode(String.self))
        }
        return decoder
    }()

    /// A contract type from an answer's bytes.
    static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        try decoder.decode(type, from: data)
    }

    /// A contract type's bytes as the generated client would send them, for a transport other than
    /// that client (iOS's background upload, which sends a file).
    static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        try CanonicalJSON.wireEncoder.encode(value)
    }
}

/// Adds the device's bearer token and asks for JSON or problem+json on every request.
struct DeviceHeaders: ClientMiddleware {
    let token: String?
    let clock: any AttendanceClock

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
        // The phone's clock at sending, from which the server keeps a check-in's clock skew.
        if request.headerFields[.date] == nil { request.headerFields[.date] = HTTPDate.format(clock.now()) }
        return try await next(request, body, baseURL)
    }
}

/// The status, `Retry-After` and body of an answer, as bytes.
struct RawAnswer: Sendable {
    var status: Int
    var retryAfter: String?
    var body: Data
}

/// Keeps a copy of each answer's status, `Retry-After` and body for the uploader's classifier,
/// and hands the body on to the generated decoder unchanged.
struct ResponseRecorder: ClientMiddleware {
    final class Box: Sendable {
        private let stored = Locked<RawAnswer?>(nil)
        var answer: RawAnswer? { stored.value }
        func record(_ answer: RawAnswer) { stored.value = answer }
    }

    @TaskLocal static var current: Box?

    /// Larger answers are not the server's (its problems and results are small).
    static let maxBodyBytes = 4 << 20

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        let bytes: Data =
            if let responseBody { try await Data(collecting: responseBody, upTo: Self.maxBodyBytes) } else { Data() }
        Self.current?.record(
            RawAnswer(status: response.status.code, retryAfter: response.headerFields[.retryAfter], body: bytes))
        return (response, responseBody == nil ? nil : HTTPBody(bytes))
    }
}

/// Bytes sent and received over HTTP: request and status lines, header fields and bodies (what
/// HTTP/1.1 puts on the wire above TCP; TLS and TCP overhead are not counted).
public final class TrafficMeter: Sendable {
    private let counts = Locked<(sent: Int, received: Int)>((0, 0))

    public init() {}

    public var sent: Int { counts.value.sent }
    public var received: Int { counts.value.received }
    public var total: Int { counts.withLock { $0.sent + $0.received } }

    func add(sent: Int, received: Int) {
        counts.withLock {
            $0.sent += sent
            $0.received += received
        }
    }

    static func headerBytes(_ fields: HTTPFields) -> Int {
        fields.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
    }
}

/// Feeds a `TrafficMeter` with each exchange's size; sits innermost, next to the transport.
struct TrafficCounter: ClientMiddleware {
    let meter: TrafficMeter

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var requestBody = body
        var sent =
            "\(request.method.rawValue) \(baseURL.path)\(request.path ?? "/") HTTP/1.1\r\n".utf8.count
            + (baseURL.host?.utf8.count ?? 0) + 8 + TrafficMeter.headerBytes(request.headerFields) + 2
        if let body {
            let bytes = try await Data(collecting: body, upTo: ResponseRecorder.maxBodyBytes)
            sent += bytes.count + (request.headerFields[.contentLength] == nil ? 20 : 0)
            requestBody = HTTPBody(bytes)
        }
        do {
            let (response, responseBody) = try await next(request, requestBody, baseURL)
            let bytes: Data =
                if let responseBody {
                    try await Data(collecting: responseBody, upTo: ResponseRecorder.maxBodyBytes)
                } else { Data() }
            meter.add(sent: sent, received: 17 + TrafficMeter.headerBytes(response.headerFields) + 2 + bytes.count)
            return (response, responseBody == nil ? nil : HTTPBody(bytes))
        } catch {
            meter.add(sent: sent, received: 0)
            throw error
        }
    }
}

/// What came back from one generated-client call: the bytes `ResponseRecorder` saw, and the
/// contract's type when the answer matched it; or why nothing came back.
enum Exchange<Output> {
    case answered(RawAnswer, Output?)
    case failure(String)

    /// Runs `call`; classification uses the status, `Retry-After` and body the recorder saw, so an
    /// answer the contract does not describe (a proxy's 502) is still judged.
    static func run(timeoutSeconds: Double, _ call: () async throws -> Output) async -> Exchange<Output>
    where Output: Sendable {
        let recorder = ResponseRecorder.Box()
        do {
            let output = try await ResponseRecorder.$current.withValue(recorder) { try await call() }
            guard let raw = recorder.answer else { return .failure("no answer was recorded") }
            return .answered(raw, output)
        } catch {
            if let raw = recorder.answer { return .answered(raw, nil) }
            let underlying = (error as? ClientError)?.underlyingError ?? error
            if let urlError = underlying as? URLError {
                return .failure(
                    urlError.code == .timedOut
                        ? "timed out after \(timeoutSeconds) s"
                        : "network error: \(urlError.localizedDescription) (\(urlError.code.rawValue))")
            }
            return .failure("network error: \(underlying)")
        }
    }
}
