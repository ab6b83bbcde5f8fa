import AttendanceConsole
import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import NIOCore
import Synchronization

/// What one request learns on its way through the layers, for its log line and its metrics: the
/// Hummingbird middleware creates it, the OpenAPI middlewares fill in the operation and the caller.
final class RequestRecord: Sendable {
    @TaskLocal static var current: RequestRecord?

    let id: String
    private let state = Mutex<(operation: String?, principal: Principal?, body: ByteBuffer?, query: String?)>(
        (nil, nil, nil, nil))

    init(id: String) { self.id = id }

    var operation: String? { state.withLock { $0.operation } }
    var principal: Principal? { state.withLock { $0.principal } }

    func record(operation: String) { state.withLock { $0.operation = operation } }
    func record(principal: Principal) { state.withLock { $0.principal = principal } }

    /// The request's collected body and query, to point at a refused value (`FieldLocator`). The
    /// buffer is shared with the request, not copied; it becomes `Data` only when a value is refused.
    var input: (body: Data?, query: String?) { state.withLock { ($0.body.map { Data(buffer: $0) }, $0.query) } }
    func record(body: ByteBuffer, query: String?) {
        state.withLock {
            $0.body = body
            $0.query = query
        }
    }

    /// A request id from the caller (`X-Request-Id`) when it is short and plain, else a new one.
    static func id(from header: String?) -> String {
        if let header, (1...64).contains(header.utf8.count),
            header.utf8.allSatisfy({
                $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".")
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0)
            })
        {
            return header
        }
        return String(UInt64.random(in: .min ... .max), radix: 16).leftPadded(to: 16)
    }
}

/// The caller, authenticated by `AuthMiddleware`, for the handlers.
enum Caller {
    @TaskLocal static var principal: Principal?

    static func current() throws -> Principal {
        guard let principal else {
            throw Problem(401, "Unauthorized", "an 'Authorization: Bearer <token>' header is required")
        }
        return principal
    }

    /// Who the ledger records as making this request's changes.
    static func actor() throws -> LedgerActor { LedgerActor(try current()) }

    /// The device and its employee, for the employee's own operations (`/v1/me/…`).
    static func device() throws -> (device: DeviceID, user: UserID) {
        guard case .device(let device, let user) = try current() else {
            throw Problem(403, "Forbidden", "this operation is the employee's own; call it with their device's token")
        }
        return (device, user)
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
