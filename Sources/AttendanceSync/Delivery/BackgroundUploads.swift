import AttendanceModels
import Foundation

/// The bookkeeping of uploads handed to iOS's background `URLSession`, which finishes them while
/// the app is suspended and may deliver the answer to another process of the app (docs/SYNC.md,
/// "Background uploads"). Kept on disk beside the device's database, so that:
/// - a batch the system still has queued is not handed over a second time;
/// - an answer is applied to the outbox in whichever process it arrives, at the next drain,
///   instead of the batch being sent again;
/// - each task has its own staged file, removed when that task completes;
/// - a task the system no longer has (the app was reinstalled, the user reset the network) is
///   forgotten, and its entries are sent again.
///
/// The Apple uploader only translates: it stages, creates the task, and reports its completion.
public struct BackgroundUploads: Codable, Hashable, Sendable {
    /// A batch the system has, by its task's identifier.
    public struct Queued: Codable, Hashable, Sendable {
        public var batchKey: String
        /// The outbox entries' idempotency keys, in the batch's order.
        public var itemKeys: [String]
        /// The staged body's file name, in the uploads folder.
        public var file: String
        public var queuedAt: Date
    }

    /// A batch's answer, kept until the entries it covers were drained.
    public struct Answer: Codable, Hashable, Sendable {
        public var itemKeys: [String]
        public var status: Int
        public var retryAfter: String?
        public var body: Data
        public var at: Date
    }

    public private(set) var queued: [Int: Queued] = [:]
    public private(set) var answers: [Answer] = []

    public init() {}

    /// What a drain does with `entries`: the outcomes of those an answer already covers (applied
    /// without sending), those a queued batch still carries (not sent twice), and the rest to send.
    public func plan(for entries: [OutboxEntry], now: Date) -> Plan {
        var plan = Plan()
        let queuedKeys = Set(queued.values.flatMap(\.itemKeys))
        for entry in entries {
            if let answer = answers.last(where: { $0.itemKeys.contains(entry.idempotencyKey) }) {
                let outcomes = HTTPUploader.outcomes(
                    status: answer.status, retryAfter: answer.retryAfter, body: answer.body, entries: [entry], now: now)
                plan.answered[entry.id] = outcomes[entry.id]
            } else if queuedKeys.contains(entry.idempotencyKey) {
                plan.queued.append(entry)
            } else {
                plan.toSend.append(entry)
            }
        }
        return plan
    }

    public struct Plan: Hashable, Sendable {
        public var answered: [Int64: DeliveryOutcome] = [:]
        public var queued: [OutboxEntry] = []
        public var toSend: [OutboxEntry] = []
    }

    /// A unique staged file name for a batch (a resend of the same batch gets another one, so one
    /// task's completion never removes another's file).
    public static func fileName(batchKey: String, nonce: UInt64) -> String {
        "\(batchKey)-\(String(nonce, radix: 16)).json"
    }

    /// The system took the batch as task `taskID`.
    public mutating func queue(taskID: Int, batchKey: String, itemKeys: [String], file: String, at: Date) {
        queued[taskID] = Queued(batchKey: batchKey, itemKeys: itemKeys, file: file, queuedAt: at)
    }

    /// Task `taskID` completed with an HTTP answer: kept for the entries it covers. Returns the
    /// staged file to remove (nil for a task this book does not know).
    public mutating func answered(
        taskID: Int, status: Int, retryAfter: String?, body: Data, at: Date
    ) -> String? {
        guard let task = queued.removeValue(forKey: taskID) else { return nil }
        answers.append(Answer(itemKeys: task.itemKeys, status: status, retryAfter: retryAfter, body: body, at: at))
        return task.file
    }

    /// Task `taskID` failed without an answer (the network): its entries are sent again. Returns
    /// the staged file to remove.
    public mutating func failed(taskID: Int) -> String? {
        queued.removeValue(forKey: taskID)?.file
    }

    /// The drain applied the outcomes of these entries: their answers are no longer needed.
    public mutating func applied(_ itemKeys: Set<String>) {
        answers = answers.compactMap { answer in
            var answer = answer
            answer.itemKeys.removeAll { itemKeys.contains($0) }
            return answer.itemKeys.isEmpty ? nil : answer
        }
    }

    /// The tasks the system still has (`getAllTasks` at launch): any other queued batch is gone
    /// and its entries are sent again. Returns the staged files to remove.
    public mutating func reconcile(liveTaskIDs: Set<Int>) -> [String] {
        let gone = queued.keys.filter { !liveTaskIDs.contains($0) }.sorted()
        return gone.compactMap { queued.removeValue(forKey: $0)?.file }
    }
}

/// `BackgroundUploads` kept in a JSON file, written atomically after each change.
public final class BackgroundUploadsFile: Sendable {
    public let folder: URL
    private let book: Locked<BackgroundUploads>

    /// Opens the book in `folder` (created if missing); an unreadable book is reported and
    /// replaced by an empty one, so its batches are sent again (the server answers a resend from
    /// its record: nothing is counted twice).
    public init(folder: URL, reportError: @Sendable (String, any Error) -> Void = { _, _ in }) {
        self.folder = folder
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var loaded = BackgroundUploads()
        let url = folder.appendingPathComponent(Self.bookName)
        if FileManager.default.fileExists(atPath: url.path) {
            do { loaded = try JSONDecoder().decode(BackgroundUploads.self, from: Data(contentsOf: url)) } catch {
                reportError(
                    "the background uploads' book \(url.path) could not be read; its batches are sent again", error)
            }
        }
        book = Locked(loaded)
    }

    static let bookName = "uploads.json"

    public var value: BackgroundUploads { book.value }

    /// Changes the book and writes it; returns what `change` returned.
    @discardableResult
    public func update<Result>(_ change: (inout BackgroundUploads) -> Result) throws -> Result {
        try book.withLock { value in
            // Kept in memory only once it is on disk: a failed write leaves both as they were.
            var changed = value
            let result = change(&changed)
            try CanonicalJSON.encoder.encode(changed).write(
                to: folder.appendingPathComponent(Self.bookName), options: .atomic)
            value = changed
            return result
        }
    }

    /// Where a staged body lives.
    public func url(ofFile name: String) -> URL { folder.appendingPathComponent(name) }
}
