import AttendanceConsole
import AttendanceRules
import HTTPTypes
import OpenAPIRuntime
import Synchronization

/// Sends a device event's stored answer as its bytes, never re-encoded, so a replay is
/// byte-identical to the first answer. A handler returns the answer's status as the generated
/// output's `undocumented` case (whose body the generated code leaves empty) and leaves the stored
/// reply in this request's slot; this middleware, the innermost, writes the reply's bytes and
/// content type in place of the empty body.
struct StoredAnswerMiddleware: ServerMiddleware {
    /// Where a handler leaves the stored reply for the middleware.
    final class Slot: Sendable {
        let reply = Mutex<StoredReply?>(nil)
    }

    @TaskLocal static var slot: Slot?

    /// The operations whose answers are stored: a device's events. Every other one passes through.
    static let operations: Set<String> = ["checkIn", "checkOut", "heartbeat", "submitEvents"]

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        guard Self.operations.contains(operationID) else { return try await next(request, body, metadata) }
        let slot = Slot()
        let answer = try await Self.$slot.withValue(slot) { try await next(request, body, metadata) }
        guard let reply = slot.reply.withLock({ $0 }) else { return answer }
        let response = HTTPResponse(
            status: HTTPResponse.Status(code: reply.status), headerFields: [.contentType: reply.contentType])
        return (response, HTTPBody(reply.body))
    }

    /// What a handler returns for a stored reply: `undocumented` (the generated output's case for
    /// any status) with the reply's status; the middleware sends the reply's bytes.
    static func answer<Output>(
        _ reply: StoredReply, as undocumented: (Int, UndocumentedPayload) -> Output
    ) throws -> Output {
        guard let slot else {
            throw Problem(500, "Internal error", "a stored answer was returned outside StoredAnswerMiddleware")
        }
        slot.reply.withLock { $0 = reply }
        return undocumented(reply.status, UndocumentedPayload())
    }
}
