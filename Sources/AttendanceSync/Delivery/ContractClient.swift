import AttendanceModels
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// The generated client's coding: RFC 3339 times exactly as the engine writes them, sorted keys.
enum ContractCoding {
    struct RFC3339Transcoder: DateTranscoder {
        func encode(_ date: Date) throws -> String { RFC3339.format(date) }
        func decode(_ text: String) throws -> Date { try RFC3339.parse(text) }
    }

    static let configuration = Configuration(dateTranscoder: RFC3339Transcoder(), jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in try RFC3339.parse(try decoder.singleValueContainer().decode(String.self)) }
        return decoder
    }()

    /// A wire value of AttendanceModels (the engine's events) as the contract's generated type.
    static func convert<From: Encodable, To: Decodable>(_ value: From) throws -> To {
        try decoder.decode(To.self, from: try CanonicalJSON.encoder.encode(value))
    }
}

/// Adds the device's bearer token and asks for JSON or problem+json on every request.
struct DeviceHeaders: ClientMiddleware {
    let token: String?

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let token { request.headerFields[.authorization] = "Bearer \(token)" }
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

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        let bytes: Data = if let responseBody { try await Data(collecting: responseBody, upTo: Self.maxBodyBytes) } else { Data() }
        Self.current?.record(RawAnswer(status: response.status.code, retryAfter: response.headerFields[.retryAfter], body: bytes))
        return (response, responseBody == nil ? nil : HTTPBody(bytes))
    }
}
