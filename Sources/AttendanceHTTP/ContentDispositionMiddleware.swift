import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends `Content-Disposition` as the handler wrote it. The OpenAPI runtime percent-encodes every
/// header value it writes (apple/swift-openapi-generator#857), which turns
/// `attachment; filename="timesheet.csv"` into a value no browser reads as a file name.
struct ContentDispositionMiddleware: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var (response, body) = try await next(request, body, metadata)
        if let encoded = response.headerFields[.contentDisposition], let value = encoded.removingPercentEncoding {
            response.headerFields[.contentDisposition] = value
        }
        return (response, body)
    }
}
