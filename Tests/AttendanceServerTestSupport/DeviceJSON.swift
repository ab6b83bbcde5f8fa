import AttendanceConsole
import AttendanceModels
import AttendanceRules
import AttendanceServer
import AttendanceStorage
import Foundation

@testable import AttendanceHTTP

/// A device endpoint, for tests that feed `IngestService` JSON bodies.
public enum DeviceEndpoint: Sendable {
    case checkIn, checkOut, heartbeat
}

/// The device's JSON as the server reads it, for tests of `IngestService` without a socket: the
/// contract's generated decoder, then the server's mapping (`DeviceRequestMapping`), then the service
/// with the contract's answers; a body the decoder refuses is the 400 the HTTP layer would send.
extension IngestService {
    /// The service as `attendance serve` makes it: its answers are the contract's JSON.
    public static func contract(
        repository: any AttendanceRepository, limits: IngestLimits = IngestLimits(), environment: ServerEnvironment
    ) -> IngestService {
        IngestService(repository: repository, answers: ContractAnswers(), limits: limits, environment: environment)
    }

    /// A body of `endpoint` as the typed request the HTTP layer would hand over.
    public static func request(_ endpoint: DeviceEndpoint, json body: Data) throws -> DeviceRequest {
        switch endpoint {
        case .checkIn:
            try DeviceRequestMapping.checkIn(try Wire.decode(Components.Schemas.CheckInRequest.self, from: body))
        case .checkOut:
            try DeviceRequestMapping.checkOut(try Wire.decode(Components.Schemas.CheckOutRequest.self, from: body))
        case .heartbeat:
            try DeviceRequestMapping.heartbeat(try Wire.decode(Components.Schemas.HeartbeatRequest.self, from: body))
        }
    }

    public func handle(
        _ endpoint: DeviceEndpoint, body: Data, idempotencyKey: String?, principal: Principal, deviceDate: Date? = nil
    ) async throws -> StoredReply {
        let request: DeviceRequest
        do { request = try Self.request(endpoint, json: body) } catch { return Self.refusal(error, body: body) }
        return try await handle(request, idempotencyKey: idempotencyKey, principal: principal, deviceDate: deviceDate)
    }

    public func handleBatch(
        body: Data, idempotencyKey: String?, principal: Principal, deviceDate: Date? = nil
    ) async throws -> StoredReply {
        let batch: DeviceBatch
        do {
            batch = try DeviceRequestMapping.batch(
                try Wire.decode(Components.Schemas.EventBatchRequest.self, from: body))
        } catch {
            return Self.refusal(error, body: body)
        }
        return try await handleBatch(
            batch, idempotencyKey: idempotencyKey, principal: principal, deviceDate: deviceDate)
    }

    /// The 400 `ProblemMiddleware` sends for a body the generated decoder refused.
    private static func refusal(_ error: any Error, body: Data) -> StoredReply {
        let detail = ProblemMiddleware.describeBodyError(error, input: { (body, nil) }) ?? "\(error)"
        return ContractAnswers.reply(Problem(400, "Invalid request", detail))
    }
}
