import AttendanceModels
import Foundation

/// What became of one event's delivery attempt.
public enum DeliveryOutcome: Hashable, Sendable {
    /// Accepted (2xx), including a replayed answer for a key the server already had; with the
    /// receipt of the event's ledger row when the answer carried one (LEDGER.md, "Receipts").
    case delivered(status: Int, receipt: AnswerReceipt? = nil)
    /// Try again later: 408, 429, 5xx, or a transport error. `retryAfterSeconds` is the server's
    /// `Retry-After`, when it gave one.
    case retry(reason: String, transport: Bool, retryAfterSeconds: Double?)
    /// 409: the server says a request with this key is still being processed. Retried like a
    /// 5xx, and the time it began is kept (`OutboxEntry.serverBusySince`), so one that lasts is
    /// shown in Diagnostics instead of being retried unseen for ever.
    case serverBusy(reason: String, retryAfterSeconds: Double?)
    /// Refused for good (any other status): dead-lettered with the server's problem detail.
    case rejected(status: Int, detail: String)
}

/// Maps an HTTP answer to a delivery outcome (docs/SYNC.md, "Delivery").
public enum ResponseClassifier {
    public static func classify(status: Int, retryAfter: String?, body: Data, now: Date) -> DeliveryOutcome {
        switch status {
        case 200..<300:
            let answer = try? ContractCoding.decode(EventContract.Answered.self, from: body)
            return .delivered(status: status, receipt: answer?.receipt.flatMap(EventContract.receipt))
        case 409:
            return .serverBusy(reason: "HTTP 409\(problemSummary(body).map { ": \($0)" } ?? "")",
                               retryAfterSeconds: retryAfter.flatMap { parseRetryAfter($0, now: now) })
        case 408, 429, 500..<600:
            return .retry(reason: "HTTP \(status)\(problemSummary(body).map { ": \($0)" } ?? "")", transport: false,
                          retryAfterSeconds: retryAfter.flatMap { parseRetryAfter($0, now: now) })
        default:
            return .rejected(status: status, detail: problemSummary(body) ?? "HTTP \(status) with no problem detail")
        }
    }

    /// `Retry-After` is either delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
    public static func parseRetryAfter(_ value: String, now: Date) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return Double(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    /// "title: detail" from an RFC 9457 body, or the body's text when it is not one.
    static func problemSummary(_ body: Data) -> String? {
        guard !body.isEmpty else { return nil }
        if let problem = try? ContractCoding.decode(Components.Schemas.Problem.self, from: body),
            problem.detail != nil || problem.title != nil
        {
            return [problem.title, problem.detail].compactMap { $0 }.joined(separator: ": ")
        }
        let text = String(decoding: body.prefix(500), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
