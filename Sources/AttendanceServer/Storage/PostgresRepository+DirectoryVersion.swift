import Foundation
import PostgresNIO

extension PostgresRepository {


    public func directoryVersion() async throws -> Int64 {
        for try await version in try await client.query(
            "SELECT version FROM directory_version WHERE id = 1", logger: logger
        ).decode(Int64.self) {
            return version
        }
        return 0
    }
}
