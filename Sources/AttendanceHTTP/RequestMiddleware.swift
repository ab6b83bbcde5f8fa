import AttendanceConsole
import AttendanceRules
import AttendanceServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// The first thing every request meets: a request id (kept from `X-Request-Id` when plain, sent
/// back), the body limit (413 before anything is parsed), and afterwards one log line and the
/// metrics. The log line has the id, method, path (no query), operation, caller, status and
/// duration; never a header, a body or a token.
struct RequestMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger
    let metrics: ServerMetrics
    let maxBodyBytes: Int
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let record = RequestRecord(id: RequestRecord.id(from: request.headers[.requestID]))
        let start = ContinuousClock.now
        metrics.started()
        var response: Response
        do {
            response = try await RequestRecord.$current.withValue(record) {
                try await limited(request, context: context, next: next)
            }
        } catch let error as HTTPError where error.status == .notFound && record.operation == nil {
            response = Self.unrouted(request, routes: routes)
        } catch let error as HTTPError {
            response = Self.problem(
                Problem(Int(error.status.code), error.status.reasonPhrase, error.body ?? error.status.reasonPhrase))
        } catch let error as HTTPParserError {
            // Malformed framing: Hummingbird answers 400 and closes the connection, which can't be
            // read any further. Logged and counted here as that 400.
            metrics.finished(
                operation: record.operation ?? "unmatched", status: 400, duration: ContinuousClock.now - start)
            logger.info(
                "request",
                metadata: [
                    "request_id": "\(record.id)", "method": "\(request.method.rawValue)",
                    "path": "\(request.uri.path)", "status": "400", "error": "\(error)",
                ])
            throw error
        } catch {
            logger.error("request failed", metadata: ["request_id": "\(record.id)", "error": "\(error)"])
            response = Self.problem(
                Problem(
                    500, "Internal error",
                    "the server failed to answer; request id \(record.id) identifies it in the server's log"))
        }
        response.headers[.requestID] = record.id
        let duration = ContinuousClock.now - start
        let operation = record.operation ?? "unmatched"
        metrics.finished(operation: operation, status: Int(response.status.code), duration: duration)
        var metadata: Logger.Metadata = [
            "request_id": "\(record.id)", "method": "\(request.method.rawValue)", "path": "\(request.uri.path)",
            "operation": "\(operation)", "status": "\(response.status.code)",
            "duration_ms":
                "\(String(format: "%.2f", Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000))",
        ]
        switch record.principal {
        case .admin?: metadata["caller"] = "admin"
        case .staff(let staff)?: metadata["caller"] = "account:\(staff.accountId)"
        case .device(let device, _)?: metadata["caller"] = "\(device.rawValue)"
        case nil: break
        }
        logger.info("request", metadata: metadata)
        return response
    }

    /// Refuses a body over the limit with 413 before reading it (by Content-Length) or while
    /// reading it (chunked), then hands the collected body on.
    private func limited(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        let tooLarge = Problem(413, "Body too large", "the body is over the limit of \(maxBodyBytes) bytes")
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxBodyBytes {
            return Self.problem(
                Problem(413, "Body too large", "the body is \(length) bytes; the limit is \(maxBodyBytes) bytes"))
        }
        var request = request
        do {
            let body = try await request.collectBody(upTo: maxBodyBytes)
            RequestRecord.current?.record(body: body, query: request.uri.query)
            if let refused = ControlCharacterGuard.problem(inPath: request.uri.path)
                ?? request.uri.query.flatMap(ControlCharacterGuard.problem(inQuery:))
                ?? ControlCharacterGuard.problem(inJSON: body.readableBytesView)
            {
                return Self.problem(Problem(refused))
            }
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return Self.problem(tooLarge)
        } catch is NIOTooManyBytesError {
            // A chunked body over the limit (no Content-Length to refuse it by).
            return Self.problem(tooLarge)
        }
        return try await next(request, context)
    }

    /// No operation matched: 405 with `Allow` when the path is declared for other methods, else 404.
    static func unrouted(_ request: Request, routes: RouteTable) -> Response {
        let allowed = routes.allowedMethods(path: request.uri.path)
        guard !allowed.isEmpty else {
            return problem(
                Problem(404, "Not found", "no operation at '\(request.uri.path)'; the operations are in /openapi.yaml"))
        }
        var response = problem(
            Problem(
                405, "Method not allowed",
                "'\(request.method.rawValue)' is not an operation of '\(request.uri.path)'; "
                    + "allowed: \(allowed.joined(separator: ", "))"
            ))
        response.headers[.allow] = allowed.joined(separator: ", ")
        return response
    }

    static func problem(_ problem: Problem) -> Response {
        let reply = ContractAnswers.reply(problem)
        return Response(
            status: .init(code: reply.status), headers: [.contentType: reply.contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
    }
}

extension HTTPField.Name {
    static let requestID = HTTPField.Name("X-Request-Id")!
}
