import AttendanceModels
import AttendanceRules
import AttendanceStorage
import Foundation
import GRDB
import Synchronization
import Testing

@testable import AttendanceServer

/// Device writes that wait while a commit is under way share the next transaction; each is
/// answered after that transaction ends, with its own result.
@Suite struct SQLiteGroupCommitTests {
    /// A database with a table of numbers, a table whose rows must name a parent by the end of
    /// the transaction, and a count of the transactions committed.
    private func database() throws -> (DatabaseQueue, CommitCounter) {
        let queue = try DatabaseQueue()
        let counter = CommitCounter()
        try queue.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE numbers (value INTEGER NOT NULL);
                    CREATE TABLE parents (id INTEGER PRIMARY KEY);
                    CREATE TABLE children (parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED);
                    """)
            db.add(transactionObserver: counter, extent: .databaseLifetime)
        }
        counter.reset()
        return (queue, counter)
    }

    /// Starts a write that holds the writer, queues `count` writes made by `work` behind it, and
    /// lets the first commit once all of them wait: they are then the next group. Returns the
    /// queued writes, the database and its commit count.
    private func groupBehindABusyWriter(
        count: Int, _ work: @escaping @Sendable (Int) -> @Sendable (Database) throws -> Int
    ) async throws -> (writes: [Task<Int, any Error>], queue: DatabaseQueue, counter: CommitCounter) {
        let (queue, counter) = try database()
        let group = SQLiteGroupCommit(writer: queue)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let first = Task {
            try await group.write { db in
                started.signal()
                release.wait()
                try db.execute(sql: "INSERT INTO numbers (value) VALUES (0)")
            }
        }
        while started.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(5)) }
        let writes = (1...count).map { index in Task { try await group.write(work(index)) } }
        while group.waitingCount < count { try await Task.sleep(for: .milliseconds(5)) }
        release.signal()
        try await first.value
        return (writes, queue, counter)
    }

    /// Inserts its index into `numbers` and returns it.
    private static func insert(_ index: Int, _ db: Database) throws -> Int {
        try db.execute(sql: "INSERT INTO numbers (value) VALUES (?)", arguments: [index])
        return index
    }

    private func stored(_ queue: DatabaseQueue) async throws -> [Int] {
        try await queue.read { db in try Int.fetchAll(db, sql: "SELECT value FROM numbers ORDER BY value") }
    }

    @Test func writesThatArriveDuringACommitShareTheNextTransaction() async throws {
        let (writes, queue, counter) = try await groupBehindABusyWriter(count: 10) { index in
            { db in try Self.insert(index, db) }
        }
        var answers: [Int] = []
        for write in writes { answers.append(try await write.value) }

        #expect(answers == Array(1...10))
        #expect(counter.count == 2)
        #expect(try await stored(queue) == Array(0...10))
    }

    /// A closing hook (the ledger sealed in the commit) runs in each group's transaction, after
    /// its writes; what it returns runs after the commit and before any write of the group is
    /// answered. A hook that throws is rolled back alone: the group commits and is answered.
    @Test func aGroupsClosingHookCommitsWithItAndRunsItsFollowUpBeforeTheAnswers() async throws {
        let (queue, counter) = try database()
        let group = SQLiteGroupCommit(writer: queue)
        let followed = Mutex<[Int]>([])
        let fail = Mutex(false)
        group.closeEachGroup { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM numbers") ?? 0
            try db.execute(sql: "INSERT INTO numbers (value) VALUES (?)", arguments: [1_000 + total])
            if fail.withLock({ $0 }) { throw RepositoryError(kind: .conflict, detail: "the hook fails") }
            return { followed.withLock { $0.append(total) } }
        }
        let answer = try await group.write { db in try Self.insert(1, db) }
        #expect(answer == 1 && followed.withLock { $0 } == [1])
        #expect(try await stored(queue) == [1, 1_001] && counter.count == 1)
        fail.withLock { $0 = true }
        #expect(try await group.write { db in try Self.insert(2, db) } == 2)
        #expect(try await stored(queue) == [1, 2, 1_001] && followed.withLock { $0 } == [1])
    }

    @Test func aWriteThatThrowsIsRolledBackAloneAndTheOthersCommit() async throws {
        let (writes, queue, counter) = try await groupBehindABusyWriter(count: 3) { index in
            { db in
                _ = try Self.insert(index, db)
                if index == 2 { throw RepositoryError(kind: .conflict, detail: "write 2 refused") }
                return index
            }
        }
        #expect(try await writes[0].value == 1)
        await #expect(throws: RepositoryError.self) { try await writes[1].value }
        #expect(try await writes[2].value == 3)
        #expect(counter.count == 2)
        #expect(try await stored(queue) == [0, 1, 3])
    }

    @Test func aGroupWhoseCommitFailsAnswersEveryWriteWithTheErrorAndKeepsNone() async throws {
        // Write 2 leaves a child without its parent: a deferred constraint, checked at COMMIT.
        let (writes, queue, counter) = try await groupBehindABusyWriter(count: 3) { index in
            { db in
                if index == 2 { try db.execute(sql: "INSERT INTO children (parent) VALUES (42)") }
                return try Self.insert(index, db)
            }
        }
        for write in writes {
            await #expect(throws: DatabaseError.self) { try await write.value }
        }
        #expect(counter.count == 1)
        #expect(try await stored(queue) == [0])
        // The next write is its own group and commits.
        let group = SQLiteGroupCommit(writer: queue)
        #expect(try await group.write { db in try Self.insert(7, db) } == 7)
        #expect(try await stored(queue) == [0, 7])
    }

    /// Two identical check-ins (one key) in one group: the second sees the first's claim and
    /// session in the same transaction, so it is a replay and there is one session.
    @Test func twoIdenticalCheckInsInOneGroupMakeOneSessionAndAReplay() async throws {
        let repository = try SQLiteRepository.inMemory()
        let site = SiteRecord(id: "hq", name: "HQ", timeZone: "Europe/Berlin", beacon: SiteBeacon(major: 1))
        try await repository.createSite(site, audit: nil)
        try await repository.createEmployee(EmployeeRecord(id: "alice", name: "Alice"), audit: nil)
        let command = CheckInCommand(
            sessionKey: "s-1", userId: "alice", siteId: "hq", deviceId: nil, at: Date(timeIntervalSince1970: 100),
            source: .automatic)
        let reply = StoredReply(status: 201, contentType: "application/json", body: Data("{}".utf8))
        let slot = AnswerSlot<CheckInOutcome>(scope: "device:d-1", key: "key-1", requestHash: "h") { _ in reply }

        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocker = Task {
            try await repository.group.write { _ in
                started.signal()
                release.wait()
            }
        }
        while started.wait(timeout: .now()) == .timedOut { try await Task.sleep(for: .milliseconds(5)) }
        let checkIns = (0..<2).map { _ in
            Task { try await repository.checkIn(command, now: Date(timeIntervalSince1970: 101), answering: slot) }
        }
        while repository.group.waitingCount < 2 { try await Task.sleep(for: .milliseconds(5)) }
        release.signal()
        try await blocker.value

        let outcomes = [try await checkIns[0].value, try await checkIns[1].value]
        #expect(outcomes.filter { $0 == .answered(reply) }.count == 1)
        #expect(outcomes.filter { $0 == .earlier(.replay(reply)) }.count == 1)
        #expect(try await repository.allSessions().map(\.sessionKey) == ["s-1"])
    }
}

/// Counts committed transactions.
private final class CommitCounter: TransactionObserver, Sendable {
    private let commits = Mutex(0)

    var count: Int { commits.withLock { $0 } }
    func reset() { commits.withLock { $0 = 0 } }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
    func databaseDidChange(with event: DatabaseEvent) {}
    func databaseDidCommit(_ db: Database) { commits.withLock { $0 += 1 } }
    func databaseDidRollback(_ db: Database) {}
}
