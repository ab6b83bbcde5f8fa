#if canImport(Darwin) && os(iOS)
import AttendanceModels
import AttendanceSync
import Foundation

/// The runtime's `Uploader` on iOS: a batch goes through a background `URLSession`, which
/// finishes the upload while the app is suspended (docs/SYNC.md, "Background uploads"). What was
/// handed to the system, and what it answered, is kept in `BackgroundUploads` on disk: a batch
/// iOS still has is not sent twice, and an answer that arrives after the drain stopped waiting,
/// or in another process, is applied at the next drain instead of the batch being sent again.
/// This class only translates: it stages files, creates tasks and reports their completion.
public final class BackgroundSessionUploader: NSObject, Uploader, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: mutable state is behind `Locked`; the session is thread-safe.
    public static let sessionIdentifier = "com.beaconattendance.upload"
    /// How long a drain waits for the answer before leaving the upload to the system: within the
    /// drainer's budget per request (5 s), since the drain holds the engine's turn. Offline, a
    /// background session waits for the network rather than failing.
    public static let answerWaitSeconds = 3.0

    private let book: BackgroundUploadsFile
    private let settings = Locked<HTTPUploader.Settings?>(nil)
    private let waiting = Locked<[Int: CheckedContinuation<Void, Never>]>([:])
    private let received = Locked<[Int: Data]>([:])
    /// UIKit's handler for the session's events, or that they finished before it came.
    private let systemCompletion = Locked<(handler: (@Sendable () -> Void)?, finished: Bool)>((nil, false))
    private let reportError: @Sendable (String, any Error) -> Void
    /// The background time left (nil: not limited): the wait never outlasts it.
    private let timeLeft: @Sendable () -> Double?
    /// An answer arrived with no drain waiting for it (later, or in a relaunch): drain to apply it.
    private let onLateAnswer: @Sendable () -> Void
    private var session: URLSession!

    /// Create once per process, at launch (before `didFinishLaunching` returns): iOS delivers a
    /// finished upload's events to the session of this identifier, and there must be one.
    /// `folder`: where the book and the staged bodies live (Application Support).
    public init(
        folder: URL, timeLeft: @escaping @Sendable () -> Double?, onLateAnswer: @escaping @Sendable () -> Void,
        reportError: @escaping @Sendable (String, any Error) -> Void
    ) {
        book = BackgroundUploadsFile(folder: folder, reportError: reportError)
        self.timeLeft = timeLeft
        self.onLateAnswer = onLateAnswer
        self.reportError = reportError
        super.init()
        let configuration = URLSessionConfiguration.background(withIdentifier: Self.sessionIdentifier)
        configuration.isDiscretionary = false
        configuration.sessionSendsLaunchEvents = true
        configuration.timeoutIntervalForResource = 7 * 86_400
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        // Batches iOS no longer has (the app was reinstalled, the network settings reset) are sent again.
        let askedAt = Date()
        session.getAllTasks { [book, reportError] tasks in
            do {
                let live = Set(tasks.map(\.taskIdentifier))
                let gone = try book.update { $0.reconcile(liveTaskIDs: live, askedAt: askedAt) }
                for file in gone { try? FileManager.default.removeItem(at: book.url(ofFile: file)) }
            } catch {
                reportError("reconciling the background uploads", error)
            }
        }
    }

    /// The enrollment's server and token (set when the runtime is built, again after re-enrolling).
    public func configure(_ settings: HTTPUploader.Settings) { self.settings.value = settings }

    /// From `application(_:handleEventsForBackgroundURLSession:completionHandler:)`.
    /// If the session's events already finished (they can, before UIKit hands the handler over),
    /// `completion` runs now.
    public func handleEvents(completion: @escaping @Sendable () -> Void) {
        let finished = systemCompletion.withLock { state -> Bool in
            if state.finished {
                state.finished = false
                return true
            }
            state.handler = completion
            return false
        }
        if finished { completion() }
    }

    public func upload(_ entries: [OutboxEntry]) async -> [Int64: DeliveryOutcome] {
        guard !entries.isEmpty else { return [:] }
        let plan: BackgroundUploads.Plan
        do { plan = try book.current().plan(for: entries, now: Date()) } catch {
            // Before the first unlock: nothing is known of what iOS holds, so nothing is sent.
            return Self.retryAll(entries, "\(error)")
        }
        var outcomes = Self.outcomes(
            of: plan, queued: "queued with iOS's background upload; its answer is applied when it comes")
        var answered = Set(plan.answered.keys)
        if !plan.toSend.isEmpty {
            let sent = await send(plan.toSend)
            outcomes.merge(sent.outcomes) { _, new in new }
            answered.formUnion(sent.answered)
        }
        // The drain records these outcomes in the outbox now: their answers are done with.
        let applied = Set(entries.filter { answered.contains($0.id) }.map(\.idempotencyKey))
        if !applied.isEmpty {
            do { try book.update { $0.applied(applied) } } catch { reportError("recording applied answers", error) }
        }
        return outcomes
    }

    /// A plan's outcomes: the answers it found, and a retry for the entries still with the system
    /// (`queued`, why) and for those it would send (their task failed without an answer).
    private static func outcomes(of plan: BackgroundUploads.Plan, queued: String) -> [Int64: DeliveryOutcome] {
        var outcomes = plan.answered
        for entry in plan.queued {
            outcomes[entry.id] = .retry(reason: queued, transport: true, retryAfterSeconds: nil)
        }
        for entry in plan.toSend {
            outcomes[entry.id] = .retry(
                reason: "the upload failed without an answer", transport: true, retryAfterSeconds: nil)
        }
        return outcomes
    }

    /// Stages the batch in a file of its own, hands it to the system, and waits a while for the
    /// answer; without one, the entries stay queued with the system.
    private func send(_ entries: [OutboxEntry]) async -> (outcomes: [Int64: DeliveryOutcome], answered: Set<Int64>) {
        guard let settings = settings.value else {
            return (Self.retryAll(entries, "the uploader is not configured yet"), [])
        }
        let request: (idempotencyKey: String, body: Data)
        do { request = try HTTPUploader.batchRequest(for: entries, settings: settings) } catch {
            let refused = entries.map {
                ($0.id, DeliveryOutcome.rejected(status: 0, detail: "could not encode the batch: \(error)"))
            }
            return (Dictionary(uniqueKeysWithValues: refused), [])
        }
        let name = BackgroundUploads.fileName(
            batchKey: request.idempotencyKey, nonce: UInt64.random(in: .min ... .max))
        let file = book.url(ofFile: name)
        do {
            try request.body.write(
                to: file, options: [.atomic, .completeFileProtectionUntilFirstUserAuthentication])
        } catch {
            return (Self.retryAll(entries, "could not stage the batch: \(error.localizedDescription)"), [])
        }
        var urlRequest = URLRequest(
            url: HTTPUploader.serverURL(settings.baseURL).appendingPathComponent("v1/attendance/events"))
        urlRequest.httpMethod = "POST"
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        urlRequest.setValue("application/json, application/problem+json", forHTTPHeaderField: "Accept")
        urlRequest.setValue(request.idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        // No `Date`: iOS may send it long after staging, and the server would keep a false skew.
        if let token = settings.deviceToken {
            urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        let task = session.uploadTask(with: urlRequest, fromFile: file)
        let id = task.taskIdentifier
        do {
            try book.update {
                $0.queue(
                    taskID: id, batchKey: request.idempotencyKey, itemKeys: entries.map(\.idempotencyKey),
                    file: name, at: Date())
            }
        } catch {
            task.cancel()
            try? FileManager.default.removeItem(at: file)
            return (
                Self.retryAll(entries, "could not record the background upload: \(error.localizedDescription)"), []
            )
        }
        await withCheckedContinuation { continuation in
            waiting.withLock { $0[id] = continuation }
            task.resume()
            let wait = max(0, min(Self.answerWaitSeconds, (timeLeft() ?? .infinity) - 1))
            DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [weak self] in
                self?.wake(id)
            }
        }
        let plan = (try? book.current().plan(for: entries, now: Date())) ?? BackgroundUploads.Plan(queued: entries)
        // Entries to send now are those whose task failed without an answer (the book forgot it).
        let outcomes = Self.outcomes(
            of: plan,
            queued: "no answer within \(Int(Self.answerWaitSeconds)) s; the system finishes the upload in the "
                + "background and its answer is applied when it comes")
        return (outcomes, Set(plan.answered.keys))
    }

    private static func retryAll(_ entries: [OutboxEntry], _ reason: String) -> [Int64: DeliveryOutcome] {
        Dictionary(
            uniqueKeysWithValues: entries.map {
                ($0.id, .retry(reason: reason, transport: true, retryAfterSeconds: nil))
            })
    }

    /// Resumes the drain waiting for task `id`, once.
    private func wake(_ id: Int) {
        waiting.withLock { $0.removeValue(forKey: id) }?.resume()
    }

    // MARK: - URLSessionDataDelegate

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        received.withLock { $0[dataTask.taskIdentifier, default: Data()].append(data) }
    }

    /// In this process or a relaunched one: the answer goes into the book, the staged file away.
    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let id = task.taskIdentifier
        let body = received.withLock { $0.removeValue(forKey: id) } ?? Data()
        do {
            let file: String? = try book.update { book in
                if error == nil, let response = task.response as? HTTPURLResponse {
                    return book.answered(
                        taskID: id, status: response.statusCode,
                        retryAfter: response.value(forHTTPHeaderField: "Retry-After"), body: body, at: Date())
                }
                return book.failed(taskID: id)
            }
            if let file { try? FileManager.default.removeItem(at: self.book.url(ofFile: file)) }
        } catch {
            reportError("recording a background upload's answer", error)
        }
        if let waiter = waiting.withLock({ $0.removeValue(forKey: id) }) {
            waiter.resume()
        } else {
            onLateAnswer()
        }
    }

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        let handler = systemCompletion.withLock { state -> (@Sendable () -> Void)? in
            defer { state = (nil, state.handler == nil) }
            return state.handler
        }
        DispatchQueue.main.async { handler?() }
    }
}
#endif
