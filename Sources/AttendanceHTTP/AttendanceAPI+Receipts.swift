import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import OpenAPIRuntime

/// A phone's receipts for its own ledger rows, and its report when they don't hold.
extension AttendanceAPI {
    func listMyReceipts(_ input: Operations.ListMyReceipts.Input) async throws -> Operations.ListMyReceipts.Output {
        let (device, user) = try Caller.device()
        let page = try await receipts.receipts(
            device: device, user: user, after: input.query.after ?? 0, limit: input.query.limit ?? 100)
        return .ok(
            .init(
                body: .json(
                    .init(
                        logKey: receipts.verifier.encoded, checkpoint: page.checkpoint.note,
                        items: page.receipts.map { receipt in
                            .init(
                                rowId: receipt.rowId, leafIndex: receipt.leafIndex, entry: receipt.entry,
                                proof: receipt.proof.map { Data($0).base64EncodedString() })
                        },
                        nextAfter: page.nextAfter))))
    }

    func reportLedgerWarning(
        _ input: Operations.ReportLedgerWarning.Input
    ) async throws -> Operations.ReportLedgerWarning.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let (device, user) = try Caller.device()
        let warning = try await receipts.report(
            device: device, user: user, problem: body.problem, checkpoint: body.checkpoint)
        return .created(
            .init(
                body: .json(
                    .init(deviceId: warning.deviceId.rawValue, problem: warning.problem, reportedAt: warning.reportedAt)
                )))
    }
}
