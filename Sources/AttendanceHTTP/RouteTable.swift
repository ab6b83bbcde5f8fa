import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// The methods the contract declares for each path template, learnt while the generated code
/// registers its handlers, so that a request with an undeclared method on a known path gets 405
/// with `Allow` (RFC 9110 §15.5.6) instead of 404.
final class RouteTable: Sendable {
    private let routes = Mutex<[(segments: [Substring], method: HTTPRequest.Method)]>([])

    func add(method: HTTPRequest.Method, template: String) {
        routes.withLock { $0.append((template.split(separator: "/"), method)) }
    }

    /// The declared methods of the template `path` matches (empty when no template does), sorted.
    func allowedMethods(path: String) -> [String] {
        let segments = path.split(separator: "/")
        let methods = routes.withLock { routes in
            routes.filter { Self.matches($0.segments, segments) }.map(\.method.rawValue)
        }
        return Set(methods).sorted()
    }

    private static func matches(_ template: [Substring], _ path: [Substring]) -> Bool {
        guard template.count == path.count else { return false }
        return zip(template, path).allSatisfy { part, segment in
            (part.hasPrefix("{") && part.hasSuffix("}")) || part == segment
        }
    }
}

/// A transport that notes each operation's method and path in a `RouteTable`, then registers it
/// on the real one (the Hummingbird router).
struct RecordingTransport<Inner: ServerTransport>: ServerTransport {
    let inner: Inner
    let table: RouteTable

    func register(
        _ handler:
            @Sendable @escaping (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (
                HTTPResponse, HTTPBody?
            ),
                  method: HTTPRequest.Method, path: String) throws {
        table.add(method: method, template: path)
        try inner.register(handler, method: method, path: path)
    }
}
