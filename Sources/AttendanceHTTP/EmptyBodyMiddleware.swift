import HTTPTypes
import OpenAPIRuntime

/// A request with an empty body is a request without one: `curl -X POST …/approve` (an optional
/// body left out) reaches the operation as "no body", not as JSON that fails to parse.
struct EmptyBodyMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        if let body, case .known(0) = body.length, request.headerFields[.contentType] == nil {
            return try await next(request, nil, metadata)
        }
        return try await next(request, body, metadata)
    }
}
