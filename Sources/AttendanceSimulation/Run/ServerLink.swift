import AttendanceSync
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import OpenAPIRuntime

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How the simulator's requests reach the server: over HTTP (`--transport http`, loopback or
/// `--server`), or handed to the server's router in this process (`--transport inprocess`). The
/// phones' generated client and the admin calls go through the same link.
public protocol ServerLink: Sendable {
    /// The report's name for it.
    var name: String { get }
    /// The base URL the generated client is given (its path prefix; the host is not dialled in
    /// process).
    var baseURL: URL { get }
    func exchange(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data)
}

/// Real HTTP to a server's base URL, on URLSession.
struct HTTPLink: ServerLink {
    let baseURL: URL
    let session: URLSession
    var name: String { "http" }

    init(baseURL: URL) {
        self.baseURL = HTTPUploader.serverURL(baseURL)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 600
        configuration.httpMaximumConnectionsPerHost = 16
        session = URLSession(configuration: configuration)
    }

    func exchange(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        guard let url = URL(string: baseURL.absoluteString + (request.path ?? "/")) else {
            throw Simulation.Failure(description: "can't make a URL of \(baseURL) and '\(request.path ?? "")'")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headerFields { urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName) }
        urlRequest.httpBody = body
        let (data, response) = try await session.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse else {
            throw Simulation.Failure(description: "\(request.method) \(request.path ?? ""): not an HTTP answer")
        }
        var fields = HTTPFields()
        for (key, value) in http.allHeaderFields {
            guard let name = HTTPField.Name("\(key)") else { continue }
            fields.append(HTTPField(name: name, value: "\(value)"))
        }
        return (HTTPResponse(status: .init(code: http.statusCode), headerFields: fields), data)
    }
}

/// The server's real router and handlers in this process, through Hummingbird's in-process
/// client: no socket, the same middleware, handlers and database commits.
struct InProcessLink: ServerLink {
    let client: any TestClientProtocol
    var name: String { "inprocess" }
    var baseURL: URL { URL(string: "http://inprocess.invalid")! }

    func exchange(_ request: HTTPRequest, body: Data?) async throws -> (HTTPResponse, Data) {
        let response = try await client.executeRequest(
            uri: request.path ?? "/", method: request.method, headers: request.headerFields,
            body: body.map { ByteBuffer(bytes: $0) })
        let data = Data(response.body.readableBytesView)
        return (response.head, data)
    }
}

/// The generated client's transport over a link.
struct LinkTransport: ClientTransport {
    let link: any ServerLink

    func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
        HTTPResponse, HTTPBody?
    ) {
        var request = request
        // The generated client gives the operation's path; the base URL's own path goes first.
        let prefix = baseURL.path
        if !prefix.isEmpty, prefix != "/" { request.path = prefix + (request.path ?? "") }
        var data: Data?
        if let body { data = try await Data(collecting: body, upTo: .max) }
        let (response, answer) = try await link.exchange(request, body: data)
        return (response, HTTPBody(answer))
    }
}
