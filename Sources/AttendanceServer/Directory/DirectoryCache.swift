import AttendanceModels
import AttendanceRules
import Foundation
import Synchronization

/// Sites and employees that exist, remembered so that a check-in does not read them from the
/// database each time. An entry is served only under the directory version it was loaded with
/// (`DirectoryWatch`): any change to a site or employee, through this process or another one on
/// the same database, makes every entry a miss within `DirectoryWatch.trustSeconds`. Only hits are
/// kept (an unknown site is asked again at once, so a site created a moment ago is never refused).
/// Without a watch nothing is cached.
final class DirectoryCache: Sendable {
    static let capacity = 10_000
    private let watch: DirectoryWatch?
    private let sitesByID = VersionedTable<SiteID, SiteRecord>(capacity: capacity)
    private let sitesByBeacon = VersionedTable<SiteBeacon, SiteRecord>(capacity: capacity)
    private let employees = VersionedTable<UserID, Bool>(capacity: capacity)

    init(watch: DirectoryWatch?) {
        self.watch = watch
    }

    func site(id: SiteID, load: () async throws -> SiteRecord?) async rethrows -> SiteRecord? {
        try await sitesByID.value(for: id, trusted: watch?.trustedVersion(), load: load)
    }

    func site(beacon: SiteBeacon, load: () async throws -> SiteRecord?) async rethrows -> SiteRecord? {
        try await sitesByBeacon.value(for: beacon, trusted: watch?.trustedVersion(), load: load)
    }

    func employeeExists(_ id: UserID, load: () async throws -> Bool) async rethrows -> Bool {
        try await employees.value(for: id, trusted: watch?.trustedVersion()) { try await load() ? true : nil } ?? false
    }
}

/// Values by key, each kept with the directory version it was loaded under.
final class VersionedTable<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var value: Value
        var version: Int64
    }

    private let capacity: Int
    private let entries = Mutex<[Key: Entry]>([:])

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The entry when the version it was loaded under is `trusted`; otherwise `load`, kept under
    /// `trusted` as it was read *before* the load ran (a change committed during the load then
    /// makes it a miss at the next read of the version, never a stale hit). Nothing is kept
    /// without a trusted version, nor when `load` finds nothing.
    func value(for key: Key, trusted version: Int64?, load: () async throws -> Value?) async rethrows -> Value? {
        if let version, let hit = entries.withLock({ $0[key] }), hit.version == version { return hit.value }
        guard let value = try await load() else { return nil }
        if let version {
            entries.withLock { entries in
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
                entries[key] = Entry(value: value, version: version)
            }
        }
        return value
    }
}
