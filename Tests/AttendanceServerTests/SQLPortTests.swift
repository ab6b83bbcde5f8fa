import AttendanceModels
import AttendanceServerTestSupport
import AttendanceStorage
import Foundation
import Testing

@testable import AttendanceServer

/// The storage port on both databases: one SQL text with its values bound apart, rows read back
/// as the same Swift values, writes that commit or roll back whole, and a unique refusal told
/// apart from a failure.
@Suite struct SQLPortTests {
    static func database(_ backend: Backend) async throws -> (any SQLDatabase, any ServerRepository) {
        let repository = try await backend.makeRepository()
        let storage = try #require(repository as? any SQLStorage)
        return (storage.database, repository)
    }

    @Test func placeholdersFollowTheDialect() {
        let id = "hq"
        let major = 7
        let sql: SQL = "SELECT name FROM sites WHERE id = \(id) AND major = \(major) AND name <> '?'"
        #expect(sql.text(for: .sqlite) == "SELECT name FROM sites WHERE id = ? AND major = ? AND name <> '?'")
        #expect(sql.text(for: .postgresql) == "SELECT name FROM sites WHERE id = $1 AND major = $2 AND name <> '?'")
        #expect(sql.binds(for: .sqlite) == [.text("hq"), .integer(7)])
        let members: SQL = "SELECT 1 FROM employees WHERE id \(anyOf: ["a", "b"]) AND name = \("x")"
        #expect(members.text(for: .sqlite) == "SELECT 1 FROM employees WHERE id IN (?, ?) AND name = ?")
        #expect(members.binds(for: .sqlite) == [.text("a"), .text("b"), .text("x")])
        #expect(members.text(for: .postgresql) == "SELECT 1 FROM employees WHERE id = ANY($1) AND name = $2")
        #expect(members.binds(for: .postgresql) == [.textArray(["a", "b"]), .text("x")])
        let joined = SQL.joined(["a = \(1)", "b = \(2)"], separator: " AND ")
        #expect(joined.text(for: .postgresql) == "a = $1 AND b = $2")
    }

    @Test(arguments: Backend.allCases) func valuesReadBackAsTheyWereBound(backend: Backend) async throws {
        let (database, repository) = try await Self.database(backend)
        defer { repository.shutdown() }
        let when = Date(timeIntervalSince1970: 1_795_338_000.25)
        let row = try #require(
            try await database.read { tx in
                try await tx.query(
                    """
                    SELECT \(Int64(1) << 40) AS big, \(2.5) AS real, \("naïve ' text") AS text,
                        \(Data([0, 1, 255])) AS bytes, \(true) AS yes, \(when) AS at, \(String?.none) AS absent
                    """
                ).first
            })
        #expect(try row.decode(0, as: Int64.self) == 1 << 40)
        #expect(try row.decode(1, as: Double.self) == 2.5)
        #expect(try row.decode(2, as: String.self) == "naïve ' text")
        #expect(try row.decode(3, as: Data.self) == Data([0, 1, 255]))
        #expect(try row.decode(4, as: Bool.self))
        #expect(try row.decode(5, as: Date.self) == when)
        #expect(try row.decode(6, as: String?.self) == nil)
        let error = try #require(throws: SQLDecodingError.self) { try row.decode(2, as: Int.self) }
        #expect(error.column == "text")
    }

    @Test(arguments: Backend.allCases) func anEmptyBlobAndAUniqueViolationSurviveTheRoundTrip(backend: Backend)
        async throws
    {
        let (database, repository) = try await Self.database(backend)
        defer { repository.shutdown() }
        let empty = try await database.read { tx in try await tx.query("SELECT \(Data()) AS empty_bytes").first }
        #expect(try empty?.decode(0, as: Data?.self) == Data())
        try await database.write { tx in try await tx.execute("INSERT INTO employees (id, name) VALUES ('ann', 'Ann')")
        }
        do {
            try await database.write { tx in
                try await tx.execute("INSERT INTO employees (id, name) VALUES (\("ann"), \("Ann again"))")
            }
            Issue.record("a second employee 'ann' was written")
        } catch {
            #expect(database.isUniqueViolation(error), "\(error)")
        }
    }

    @Test(arguments: Backend.allCases) func aWriteCommitsWholeOrNotAtAll(backend: Backend) async throws {
        let (database, repository) = try await Self.database(backend)
        defer { repository.shutdown() }
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await database.write { tx in
                try await tx.execute("INSERT INTO employees (id, name) VALUES ('ann', 'Ann')")
                // Whatever the body awaits elsewhere, it comes back to the same transaction.
                try await Task.sleep(for: .milliseconds(5))
                try await tx.execute("INSERT INTO employees (id, name) VALUES ('bo', 'Bo')")
                throw Refused()
            }
        }
        #expect(try await repository.employee(id: "ann") == nil)
        let changed = try await database.write { tx in
            try await tx.execute("INSERT INTO employees (id, name) VALUES ('ann', 'Ann'), ('bo', 'Bo')")
            return try await tx.execute("UPDATE employees SET name = name || '!' WHERE id IN ('ann', 'bo')")
        }
        #expect(changed == 2)
        #expect(try await repository.employee(id: "bo")?.name == "Bo!")
    }

    @Test(arguments: Backend.allCases) func aUniqueRefusalIsAConflict(backend: Backend) async throws {
        let (database, repository) = try await Self.database(backend)
        defer { repository.shutdown() }
        try await database.write { try await $0.execute("INSERT INTO employees (id, name) VALUES ('ann', 'Ann')") }
        do {
            try await database.unique("employee 'ann' exists") {
                try await database.write {
                    try await $0.execute("INSERT INTO employees (id, name) VALUES ('ann', 'A')")
                }
            }
            Issue.record("a second 'ann' was written")
        } catch let error as RepositoryError {
            #expect(error.kind == .conflict)
            #expect(error.detail == "employee 'ann' exists")
        }
        // Any other failure is not a conflict.
        await #expect(throws: (any Error).self) {
            try await database.unique("never") {
                try await database.write { try await $0.execute("INSERT INTO nowhere (id) VALUES (1)") }
            }
        }
    }
}
