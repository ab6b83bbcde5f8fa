import AttendanceConsole
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime

extension Problem: HTTPResponseConvertible {
    public var httpStatus: HTTPResponse.Status { HTTPResponse.Status(code: status) }
    public var httpHeaderFields: HTTPFields {
        var fields: HTTPFields = [.contentType: "application/problem+json"]
        if let seconds = retryAfterSeconds { fields[.retryAfter] = String(seconds) }
        return fields
    }
    public var httpBody: HTTPBody? { HTTPBody(ContractAnswers.reply(self).body) }
}

/// Every error becomes an RFC 9457 answer: a `Problem` as itself; a core
/// `DomainError` with its kind's status; input the generated code could not decode as 400 naming
/// the field; anything else as 500 that names the request id to look up in the log (never the
/// internals).
struct ProblemMiddleware: ServerMiddleware {
    let logger: Logger

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, metadata: ServerRequestMetadata, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    )
        async throws -> (HTTPResponse, HTTPBody?)
    {
        RequestRecord.current?.record(operation: operationID)
        do {
            return try await next(request, body, metadata)
        } catch {
            let convertible = respond(to: error, operationID: operationID)
            return (
                HTTPResponse(status: convertible.httpStatus, headerFields: convertible.httpHeaderFields),
                convertible.httpBody
            )
        }
    }

    private func respond(to error: any Error, operationID: String) -> any HTTPResponseConvertible {
        let underlying = (error as? ServerError)?.underlyingError ?? error
        if let problem = underlying as? Problem { return problem }
        if let error = underlying as? DomainError { return Problem(error) }
        if let server = error as? ServerError, server.operationInput == nil {
            // The generated code could not turn the request into the operation's input.
            return Problem(400, "Invalid request", Self.describeInputError(server))
        }
        let requestID = RequestRecord.current?.id ?? "unknown"
        logger.error(
            "request failed",
            metadata: ["request_id": "\(requestID)", "operation": "\(operationID)", "error": "\(underlying)"])
        return Problem(
            500, "Internal error",
            "the server failed to answer; request id \(requestID) identifies it in the server's log")
    }

    /// The field, the value when known, and what was expected, from the generated decoder's error.
    static func describeInputError(_ error: ServerError) -> String {
        let input = { RequestRecord.current?.input ?? (nil, nil) }
        if let detail = describeBodyError(error.underlyingError, input: input) { return detail }
        // Headers, path and query: the runtime's own sentence names the parameter.
        let cause = error.causeDescription
        if let range = cause.range(of: #"header field named '[^']+' is missing"#, options: .regularExpression) {
            let name = cause[range].split(separator: "'")[1]
            let expected =
                name == "Idempotency-Key"
                ? "a header of 1 to 255 characters, unique per event (derived from its content on the device)"
                : "the header (see /openapi.yaml)"
            return DomainError.field(String(name), nil, expected: expected).detail
        }
        return cause == "Unknown" ? "\(error.underlyingError)" : cause
    }

    /// A body or query value the generated decoder refused: the field and what was wrong (nil for
    /// another error). `input` is read only to find where a refused value sits.
    static func describeBodyError(
        _ error: any Error, input: () -> (body: Data?, query: String?)
    ) -> String? {
        switch error {
        case DecodingError.dataCorrupted(let context)
        where context.debugDescription.hasPrefix("Cannot initialize") && context.debugDescription.contains(" value "):
            // A value outside an enum's list (`format=pdf`): named by where it was sent.
            let value = String(context.debugDescription.split(separator: " value ", maxSplits: 1).last ?? "")
            let (body, query) = input()
            let field = FieldLocator.field(holding: value, body: body, query: query)
            return DomainError.field(
                field ?? "a value", value, expected: "one of the values /openapi.yaml lists for it"
            ).detail
        case let decoding as DecodingError:
            return describe(decoding)
        case let value as WireValueError:
            let (body, query) = input()
            guard let field = FieldLocator.field(holding: value.value, body: body, query: query) else {
                return value.message
            }
            return "'\(field)': \(value.message)"
        default:
            return nil
        }
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let names = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.isEmpty
                ? "the body" : "'" + names.joined(separator: ".").replacingOccurrences(of: ".[", with: "[") + "'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = (context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")
            return "'\(field)' is missing; expected it (see the request's schema in /openapi.yaml)"
        case .typeMismatch(let type, let context):
            return "\(path(context)) has the wrong type; expected \(typeName(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context)) is null; expected \(typeName(type))"
        case .dataCorrupted(let context):
            if let value = context.underlyingError as? WireValueError { return "\(path(context)): \(value.message)" }
            if context.codingPath.isEmpty, context.underlyingError != nil {
                return "the body is not valid JSON: \(context.debugDescription)"
            }
            return "\(path(context)) is not valid: \(context.debugDescription)"
        @unknown default:
            return "the body is not valid JSON for this operation: \(error)"
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type, is Int32.Type: return "an integer"
        case is Double.Type, is Float.Type: return "a number"
        case is Bool.Type: return "true or false"
        default: return "\(type)"
        }
    }
}
