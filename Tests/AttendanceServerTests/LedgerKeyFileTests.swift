import AttendanceModels
import AttendanceRules
import Foundation
import Testing

@testable import AttendanceServer

/// The ledger's key file: made once, whole, even when several servers start at the same moment.
@Suite struct LedgerKeyFileTests {
    @Test func serversStartingTogetherShareOneWholeKey() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("attendance-ledger.key").path
        let loaded = try await withThrowingTaskGroup(of: LedgerKeyFile.Loaded.self) { group in
            for _ in 0..<8 {
                group.addTask { try LedgerKeyFile.loadOrCreate(path: path, name: "attendance.test/ledger") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(loaded.filter(\.created).count == 1)
        #expect(Set(loaded.map(\.signer.verifier.encoded)).count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["attendance-ledger.key"])
    }

    @Test func aBadNameOrFileIsRefusedNamingIt() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("k").path
        #expect(throws: DomainError.self) { try LedgerKeyFile.loadOrCreate(path: path, name: "has space") }
        #expect(throws: DomainError.self) {
            try LedgerKeyFile.loadOrCreate(path: "/nonexistent/dir/k", name: "attendance.test/ledger")
        }
    }
}
