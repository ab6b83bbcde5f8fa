import AttendanceRules
import Foundation
import Synchronization

/// Bearer tokens this process has checked, by their hash, with whom they stand for: so that a
/// device's steady traffic costs no lookup. An entry is served only under the directory version it
/// was loaded with (`DirectoryWatch`); revoking a device or a token, deactivating an account or
/// changing its role bumps that version, so every process stops honouring the token within
/// `DirectoryWatch.trustSeconds`. Refusals are never kept. Without a watch nothing is cached.
final class CredentialCache: Sendable {
    struct Entry: Sendable {
        var principal: Principal
        /// The device's `lastSeenAt` or the API token's last use, as the lookup left it: once it is
        /// older than `DeviceRecord.lastSeenResolution` the entry is a miss, so that the lookup
        /// writes the time again.
        var seenAt: Date
        var version: Int64
    }

    static let capacity = 100_000
    private let watch: DirectoryWatch?
    private let entries = Mutex<[String: Entry]>([:])

    init(watch: DirectoryWatch?) {
        self.watch = watch
    }

    /// The principal cached for `tokenHash`, or `load`'s (principal, seenAt) kept under the
    /// version trusted before it ran.
    func principal(
        tokenHash: String, now: Date, load: () async throws -> (Principal, seenAt: Date)
    ) async throws -> Principal {
        let version = watch?.trustedVersion()
        if let version, let hit = entries.withLock({ $0[tokenHash] }), hit.version == version,
            !DeviceRecord.lastSeenIsStale(hit.seenAt, now: now)
        {
            return hit.principal
        }
        let (principal, seenAt) = try await load()
        if let version {
            entries.withLock { entries in
                if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
                entries[tokenHash] = Entry(principal: principal, seenAt: seenAt, version: version)
            }
        }
        return principal
    }
}
