#if canImport(Darwin)
import AttendanceModels
import AttendanceSync
import Foundation

/// The runtime's `Uploader` on iOS: the batch goes through a background `URLSession`, which
/// finishes the upload while the app is suspended (docs/SYNC.md). If the answer arrives while the
/// app still runs, the outcomes are exact; if not, the entries are reported "retry", and the next
/// drain sends the same batch with the same `Idempotency-Key`, which the server answers from its
/// record: exactly once either way.
public final class BackgroundSessionUploader: NSObject, Uploader, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `waiting` and `received` are behind `Locked`; the session is thread-safe.
    public static let sessionIdentifier = "com.beaconattendance.upload"
    /// How long a drain waits for the answer before leaving the upload to the system.
    public static let answerWaitSeconds = 20.0

    private struct Waiting {
        var entries: [OutboxEntry]
        var file: URL
        var continuation: CheckedContinuation<[Int64: DeliveryOutcome], Never>?
    }

    private let settings: HTTPUploader.Settings
    private let waiting = Locked<[Int: Waiting]>([:])
    private let received = Locked<[Int: Data]>([:])
    private let systemCompletion = Locked<(@Sendable () -> Void)?>(nil)
    private var session: URLSession!

    public init(settings: HTTPUploader.Settings) {
        self.settings = settings
        super.init()
        let configuration = URLSessionConfiguration.background(withIdentifier: Self.sessionIdentifier)
        configuration.isDiscretionary = false
        configuration.sessionSendsLaunchEvents = true
        configuration.timeoutIntervalForResource = 7 * 86_400
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// From `application(_:handleEventsForBackgroundURLSession:completionHandler:)`.
    public func handleEvents(completion: @escaping @Sendable () -> Void) { systemCompletion.value = completion }

    public func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
        guard !entries.isEmpty else { return [:] }
        let request: (idempotencyKey: String, body: Data)
        do { request = try HTTPUploader.batchRequest(for: entries, settings: settings) } catch {
            return Dictionary(uniqueKeysWithValues: entries.map { ($0.id, .rejected(status: 0, detail: "could not encode the batch: \(error)")) })
        }
        // Background sessions upload from a file only.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(request.idempotencyKey).json")
        do { try request.body.write(to: file, options: .atomic) } catch {
            return Self.retryAll(entries, "could not stage the batch: \(error.localizedDescription)")
        }
        var urlRequest = URLRequest(url: HTTPUploader.serverURL(settings.baseURL).appendingPathComponent("v1/attendance/events"))
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("application/json, application/problem+json", forHTTPHeaderField: "Accept")
        urlRequest.setValue(request.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        if let token = settings.deviceToken { urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let task = session.uploadTask(with: urlRequest, fromFile: file)
        let id = task.taskIdentifier
        return await withCheckedContinuation { continuation in
            waiting.withLock { $0[id] = Waiting(entries: entries, file: file, continuation: continuation) }
            task.resume()
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.answerWaitSeconds) { [weak self] in
                self?.resume(id, with: Self.retryAll(entries, "no answer within \(Int(Self.answerWaitSeconds)) s; the system finishes the upload in the background"))
            }
        }
    }

    private static func retryAll(_ entries: [OutboxEntry], _ reason: String) -> [Int64: DeliveryOutcome] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.id, .retry(reason: reason, transport: true, retryAfterSeconds: nil)) })
    }

    /// Hands the outcomes to the waiting drain, once; the staged file stays until the task completes.
    private func resume(_ id: Int, with outcomes: [Int64: DeliveryOutcome]) {
        let continuation = waiting.withLock { table -> CheckedContinuation<[Int64: DeliveryOutcome], Never>? in
            let continuation = table[id]?.continuation
            table[id]?.continuation = nil
            return continuation
        }
        continuation?.resume(returning: outcomes)
    }

    // MARK: - URLSessionDataDelegate

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.withLock { $0[dataTask.taskIdentifier, default: Data()].append(data) }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        let body = received.withLock { $0.removeValue(forKey: id) } ?? Data()
        guard let entry = waiting.withLock({ $0[id] }) else { return }   // a task from before a relaunch: the next drain resends
        let outcomes: [Int64: DeliveryOutcome]
        if let error {
            outcomes = Self.retryAll(entry.entries, "network error: \(error.localizedDescription)")
        } else if let response = task.response as? HTTPURLResponse {
            outcomes = HTTPUploader.outcomes(status: response.statusCode, retryAfter: response.value(forHTTPHeaderField: "Retry-After"), body: body,
                                             entries: entry.entries, now: Date())
        } else {
            outcomes = Self.retryAll(entry.entries, "no HTTP answer")
        }
        resume(id, with: outcomes)
        waiting.withLock { $0[id] = nil }
        try? FileManager.default.removeItem(at: entry.file)
    }

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        let completion = systemCompletion.withLock { value -> (@Sendable () -> Void)? in
            defer { value = nil }
            return value
        }
        DispatchQueue.main.async { completion?() }
    }
}
#endif
