import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import OpenAPIRuntime

/// The employee's own record and correction requests (device token), and the admins' decisions.
extension AttendanceAPI {
    func listMySessions(_ input: Operations.ListMySessions.Input) async throws -> Operations.ListMySessions.Output {
        let (_, user) = try Caller.device()
        let page = try await admin.sessions(
            userId: user.rawValue, siteId: nil, from: input.query.from.map(RFC3339.format),
            to: input.query.to.map(RFC3339.format), limit: 500, cursor: nil)
        return .ok(.init(body: .json(page.items.map(Self.session))))
    }

    func listMyRequests(_ input: Operations.ListMyRequests.Input) async throws -> Operations.ListMyRequests.Output {
        let (_, user) = try Caller.device()
        return .ok(.init(body: .json(try await requests.list(userId: user, state: nil).map(Self.request))))
    }

    func reportDeviceState(
        _ input: Operations.ReportDeviceState.Input
    ) async throws -> Operations.ReportDeviceState.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let (device, _) = try Caller.device()
        let permissions = Permissions(
            location: Permissions.Location(rawValue: body.location.rawValue) ?? .notDetermined,
            preciseLocation: body.preciseLocation ?? true,
            bluetooth: Permissions.Bluetooth(rawValue: body.bluetooth.rawValue) ?? .unknown,
            backgroundRefreshAvailable: body.backgroundRefresh == .available)
        let state = DeviceState(permissions: permissions, appVersion: body.appVersion, observedAt: body.observedAt)
        try await deviceStates.report(state, device: device)
        return .noContent(.init())
    }

    func fileRequest(_ input: Operations.FileRequest.Input) async throws -> Operations.FileRequest.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let (device, user) = try Caller.device()
        let request = try await requests.file(
            RequestService.Input(
                sessionKey: body.sessionKey, siteId: body.siteId, checkInAt: body.checkInAt,
                checkOutAt: body.checkOutAt, reason: body.reason,
                evidence: body.evidence?.additionalProperties ?? [:]),
            user: user, device: device)
        return .created(.init(body: .json(Self.request(request))))
    }

    func listRequests(_ input: Operations.ListRequests.Input) async throws -> Operations.ListRequests.Output {
        let state = input.query.state.flatMap { CorrectionRequestRecord.State(rawValue: $0.rawValue) }
        let found = try await requests.list(
            userId: try input.query.userId.map { try Self.id("userId", $0) }, state: state,
            scope: try Caller.current().siteScope)
        return .ok(.init(body: .json(found.map(Self.request))))
    }

    func approveRequest(_ input: Operations.ApproveRequest.Input) async throws -> Operations.ApproveRequest.Output {
        var comment: String?
        if case .json(let body)? = input.body { comment = body.comment }
        let request = try await requests.decide(
            id: try Self.id("requestId", input.path.requestId), approve: true, comment: comment,
            actor: try Caller.actor(), scope: try Caller.current().siteScope)
        return .ok(.init(body: .json(Self.request(request))))
    }

    func rejectRequest(_ input: Operations.RejectRequest.Input) async throws -> Operations.RejectRequest.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let request = try await requests.decide(
            id: try Self.id("requestId", input.path.requestId), approve: false, comment: body.comment,
            actor: try Caller.actor(), scope: try Caller.current().siteScope)
        return .ok(.init(body: .json(Self.request(request))))
    }
}
