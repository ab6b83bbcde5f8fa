import AttendanceServer
import HTTPTypes
import OpenAPIRuntime

/// Authenticates the bearer token before an operation runs, and keeps device tokens off admin
/// operations (403). The caller is handed to the handler through `Caller.principal`.
struct AuthMiddleware: ServerMiddleware {
    let auth: AuthService

    /// Operations anyone may call (the contract's `security: []`).
    static let publicOperations: Set<String> = ["getHealth", "getMetrics", "getOpenAPIDocument", "enrollDevice"]
    /// Operations a device token may call; every other authenticated operation is admin-only.
    static let deviceOperations: Set<String> = ["getDeviceConfig", "checkIn", "checkOut", "heartbeat", "submitEvents"]

    func intercept(_ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?)
    {
        if Self.publicOperations.contains(operationID) { return try await next(request, body, metadata) }
        let principal = try await auth.authenticate(authorization: request.headerFields[.authorization])
        RequestRecord.current?.record(principal: principal)
        if case .device(let device, _) = principal, !Self.deviceOperations.contains(operationID) {
            throw Problem(403, "Forbidden", "device '\(device)' can't call '\(operationID)'; it needs the admin token")
        }
        return try await Caller.$principal.withValue(principal) { try await next(request, body, metadata) }
    }
}
