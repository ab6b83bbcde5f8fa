import AttendanceConsole
import AttendanceRules
import AttendanceServer
import HTTPTypes
import OpenAPIRuntime

/// Authenticates the bearer token before an operation runs, keeps device tokens off admin
/// operations and the admin token off device operations (403: an admin changes attendance only
/// through corrections, which the ledger records as theirs). The caller is handed to the handler
/// through `Caller.principal`.
struct AuthMiddleware: ServerMiddleware {
    let auth: AuthService

    /// Operations anyone may call (the contract's `security: []`).
    static let publicOperations: Set<String> = [
        "getHealth", "getReadiness", "getMetrics", "getOpenAPIDocument", "enrollDevice",
    ]
    /// Operations a device token may call; every other authenticated operation is admin-only.
    static let deviceOperations: Set<String> = [
        "getDeviceConfig", "checkIn", "checkOut", "heartbeat", "submitEvents", "listMySessions", "listMyRequests",
        "fileRequest", "getMyTimesheet", "reportDeviceState", "listMyReceipts", "reportLedgerWarning", "submitSurvey",
    ]
    /// The ledger's checkpoints and proofs: a device checks its receipts with them, and a person
    /// whose role may read the audit log (`OperationPermissions`) audits or witnesses the ledger.
    static let ledgerOperations: Set<String> = [
        "getLedgerCheckpoint", "getLedgerInclusionProof", "getLedgerConsistencyProof", "listLedgerWitnesses",
    ]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        if Self.publicOperations.contains(operationID) { return try await next(request, body, metadata) }
        let principal = try await auth.authenticate(authorization: request.headerFields[.authorization])
        RequestRecord.current?.record(principal: principal)
        switch principal {
        case .device(let device, _):
            if !Self.deviceOperations.contains(operationID), !Self.ledgerOperations.contains(operationID) {
                throw Problem(
                    403, "Forbidden", "device '\(device)' can't call '\(operationID)'; it needs an admin or API token")
            }
        case .admin, .staff:
            if Self.deviceOperations.contains(operationID) {
                throw Problem(
                    403, "Forbidden",
                    "\(principal == .admin ? "the admin token" : "an API token") can't call '\(operationID)': "
                        + "attendance events come from the employee's own "
                        + "device; change a session with a correction "
                        + "(POST /v1/admin/sessions/{sessionKey}/corrections)")
            }
            // The admin token acts as the owner; an API token with its own role (`AccessPolicy`).
            if let role = principal.role, let refusal = OperationPermissions.refusal(of: operationID, to: role) {
                throw Problem(403, "Forbidden", refusal)
            }
        }
        return try await Caller.$principal.withValue(principal) { try await next(request, body, metadata) }
    }
}
