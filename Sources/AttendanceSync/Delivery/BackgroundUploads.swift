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

        public init(
            answered: [Int64: DeliveryOutcome] = [:], queued: [OutboxEntry] = [], toSend: [OutboxEntry] = []
        ) {
            self.answered = answered
            self.queued = queued
            self.toSend = toSend
        }
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

    /// The tasks the system still had when asked at `askedAt` (`getAllTasks` at launch): any other
    /// batch queued before then is gone, and its entries are sent again (a batch queued since is
    /// not in the answer, and stays). Returns the staged files to remove.
    public mutating func reconcile(liveTaskIDs: Set<Int>, askedAt: Date) -> [String] {
        let gone = queued.filter { !liveTaskIDs.contains($0.key) && $0.value.queuedAt < askedAt }.keys.sorted()
        return gone.compactMap { queued.removeValue(forKey: $0)?.file }
    }
}

/// `BackgroundUploads` kept in a JSON file, written atomically after each change. It is read on
/// first use: before the phone's first unlock after a reboot the file is protected, and the book
/// stays unloaded (every access throws `Unavailable`) until it can be read, so nothing is written
/// over it.
public final class BackgroundUploadsFile: Sendable {
    public let folder: URL
    private let book = Locked<BackgroundUploads?>(nil)
    private let reportError: @Sendable (String, any Error) -> Void

    /// The book cannot be read now (protected before the first unlock, or another error).
    public struct Unavailable: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "the background uploads' book \(path) cannot be read now: \(reason)" }
    }

    /// A book that reads but does not decode is reported and replaced by an empty one: its
    /// batches are sent again, and the server answers a resend from its record.
    public init(folder: URL, reportError: @escaping @Sendable (String, any Error) -> Void = { _, _ in }) {
        self.folder = folder
        self.reportError = reportError
    }

    static let bookName = "uploads.json"

    /// The book as it is now.
    public func current() throws -> BackgroundUploads {
        try book.withLock { try loaded(&$0) }
    }

    /// Changes the book and writes it; returns what `change` returned.
    @discardableResult
    public func update<Result>(_ change: (inout BackgroundUploads) -> Result) throws -> Result {
        try book.withLock { value in
            // Kept in memory only once it is on disk: a failed write leaves both as they were.
            var changed = try loaded(&value)
            let result = change(&changed)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try CanonicalJSON.encoder.encode(changed).write(
                to: folder.appendingPathComponent(Self.bookName), options: .atomic)
            value = changed
            return result
        }
    }

    /// Where a staged body lives.
    public func url(ofFile name: String) -> URL { folder.appendingPathComponent(name) }

    private func loaded(_ value: inout BackgroundUploads?) throws -> BackgroundUploads {
        if let value { return value }
        let url = folder.appendingPathComponent(Self.bookName)
        guard FileManager.default.fileExists(atPath: url.path) else {
            value = BackgroundUploads()
            return BackgroundUploads()
        }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw Unavailable(path: url.path, reason: "\(error)")
        }
        var book = BackgroundUploads()
        do { book = try JSONDecoder().decode(BackgroundUploads.self, from: data) } catch {
            reportError("the background uploads' book \(url.path) could not be decoded; its batches are sent again", error)
        }
        value = book
        return book
    }
}
