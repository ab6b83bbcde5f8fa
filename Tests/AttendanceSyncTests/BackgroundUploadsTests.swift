import AttendanceModels
import AttendanceSync
import Foundation
import Testing

/// The background uploads' book, with its file: what iOS's background session carries for the
/// app across processes.
@Suite struct BackgroundUploadsTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "uploads-\(UUID().uuidString)", isDirectory: true)

    func entries(_ count: Int) -> [OutboxEntry] {
        (0..<count).map { index in
            OutboxEntry(
                id: Int64(index + 1),
                event: Fixtures.event(.checkIn, session: "s-\(index)", at: Double(index)),
                enqueuedAt: Fixtures.t0)
        }
    }

    /// `POST /v1/attendance/events`'s answer for these entries, each with `status`.
    func results(_ entries: [OutboxEntry], status: Int) -> Data {
        let items = entries.map { #"{"idempotencyKey":"\#($0.idempotencyKey)","status":\#(status)}"# }
        return Data(#"{"results":[\#(items.joined(separator: ","))]}"#.utf8)
    }

    @Test func aBatchTheSystemStillHasIsNotSentAgain() throws {
        let book = BackgroundUploadsFile(folder: folder)
        let sent = entries(3)
        try book.update {
            $0.queue(
                taskID: 1, batchKey: "b1", itemKeys: sent.prefix(2).map(\.idempotencyKey), file: "b1-1.json",
                at: Fixtures.t0)
        }
        let plan = try book.current().plan(for: sent, now: Fixtures.t0)
        #expect(plan.queued.map(\.id) == [1, 2])
        #expect(plan.toSend.map(\.id) == [3])
        #expect(plan.answered.isEmpty)
    }

    @Test func anAnswerIsAppliedInTheNextProcessInsteadOfASecondUpload() throws {
        let sent = entries(2)
        // This process hands the batch to iOS, then is suspended and ends.
        try BackgroundUploadsFile(folder: folder).update {
            $0.queue(
                taskID: 7, batchKey: "b7", itemKeys: sent.map(\.idempotencyKey), file: "b7-a.json", at: Fixtures.t0)
        }
        // iOS relaunches the app for the session's events: another process gets the answer.
        let relaunched = BackgroundUploadsFile(folder: folder)
        let file = try relaunched.update {
            $0.answered(taskID: 7, status: 200, retryAfter: nil, body: results(sent, status: 201), at: Fixtures.t0)
        }
        #expect(file == "b7-a.json")
        // And the drain after that, in a third process, applies it without sending.
        let next = BackgroundUploadsFile(folder: folder)
        let plan = try next.current().plan(for: sent, now: Fixtures.t0)
        #expect(plan.answered == [1: .delivered(status: 201), 2: .delivered(status: 201)])
        #expect(plan.toSend.isEmpty && plan.queued.isEmpty)
        try next.update { $0.applied(Set(sent.map(\.idempotencyKey))) }
        #expect(try BackgroundUploadsFile(folder: folder).current() == BackgroundUploads())
    }

    @Test func anAnswerForTheWholeBatchAppliesToEachOfItsEntries() throws {
        let book = BackgroundUploadsFile(folder: folder)
        let sent = entries(2)
        try book.update {
            $0.queue(taskID: 1, batchKey: "b1", itemKeys: sent.map(\.idempotencyKey), file: "f", at: Fixtures.t0)
            _ = $0.answered(taskID: 1, status: 503, retryAfter: "30", body: Data(), at: Fixtures.t0)
        }
        let plan = try book.current().plan(for: sent, now: Fixtures.t0)
        #expect(plan.answered.count == 2)
        #expect(plan.answered.values.allSatisfy { if case .retry(_, _, 30) = $0 { true } else { false } })
    }

    @Test func aTaskThatFailedOrThatTheSystemLostIsSentAgain() throws {
        let book = BackgroundUploadsFile(folder: folder)
        let sent = entries(3)
        try book.update {
            $0.queue(taskID: 1, batchKey: "b1", itemKeys: [sent[0].idempotencyKey], file: "one", at: Fixtures.t0)
            $0.queue(taskID: 2, batchKey: "b2", itemKeys: [sent[1].idempotencyKey], file: "two", at: Fixtures.t0)
            $0.queue(taskID: 3, batchKey: "b3", itemKeys: [sent[2].idempotencyKey], file: "three", at: Fixtures.t0)
        }
        #expect(try book.update { $0.failed(taskID: 1) } == "one")
        // At launch iOS still has task 3 only.
        #expect(try book.update { $0.reconcile(liveTaskIDs: [3], askedAt: Fixtures.t0.addingTimeInterval(1)) } == ["two"])
        // A batch queued after the system was asked is not in its answer, and stays.
        try book.update {
            $0.queue(taskID: 4, batchKey: "b4", itemKeys: ["later"], file: "four", at: Fixtures.t0.addingTimeInterval(2))
        }
        #expect(try book.update { $0.reconcile(liveTaskIDs: [3], askedAt: Fixtures.t0.addingTimeInterval(1)) }.isEmpty)
        let plan = try book.current().plan(for: sent, now: Fixtures.t0)
        #expect(plan.toSend.map(\.id) == [1, 2])
        #expect(plan.queued.map(\.id) == [3])
        // An answer for a task the book does not know changes nothing.
        #expect(
            try book.update { $0.answered(taskID: 9, status: 200, retryAfter: nil, body: Data(), at: Fixtures.t0) }
                == nil)
    }

    @Test func eachTaskStagesItsOwnFile() {
        #expect(
            BackgroundUploads.fileName(batchKey: "batch-1", nonce: 1)
                != BackgroundUploads.fileName(batchKey: "batch-1", nonce: 2))
    }

    @Test func aBookThatCannotBeReadYetIsLeftAloneUntilItCan() throws {
        let sent = entries(1)
        try BackgroundUploadsFile(folder: folder).update {
            $0.queue(taskID: 1, batchKey: "b1", itemKeys: [sent[0].idempotencyKey], file: "f", at: Fixtures.t0)
        }
        let book = folder.appendingPathComponent("uploads.json")
        let kept = try Data(contentsOf: book)
        // Before the first unlock the file cannot be read (here: a folder where the file was).
        try FileManager.default.removeItem(at: book)
        try FileManager.default.createDirectory(at: book, withIntermediateDirectories: false)
        let early = BackgroundUploadsFile(folder: folder)
        #expect(throws: BackgroundUploadsFile.Unavailable.self) { try early.current() }
        #expect(throws: BackgroundUploadsFile.Unavailable.self) { try early.update { _ = $0.failed(taskID: 1) } }
        // Unlocked: the same instance reads it, as it was.
        try FileManager.default.removeItem(at: book)
        try kept.write(to: book)
        #expect(try early.current().plan(for: sent, now: Fixtures.t0).queued.map(\.id) == [1])
    }

    @Test func aBookThatDoesNotDecodeIsReportedAndItsBatchesAreSentAgain() throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("not json".utf8).write(to: folder.appendingPathComponent("uploads.json"))
        let reported = Locked<[String]>([])
        let book = BackgroundUploadsFile(folder: folder) { context, _ in reported.withLock { $0.append(context) } }
        #expect(try book.current() == BackgroundUploads())
        #expect(reported.value.count == 1)
        #expect(reported.value.first?.contains("sent again") == true)
    }
}
