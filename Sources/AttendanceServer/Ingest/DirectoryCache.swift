import AttendanceModels
import Foundation
import Synchronization

/// Sites and employees that exist, remembered for a short while so that a check-in does not
/// read them from the database each time. Only hits are kept (an unknown site is asked again at
/// once, so a site created a moment ago is never refused), and each for `lifetime` seconds, so an
/// edited beacon or a deleted site is seen within that time. A deleted site or a deactivated
/// employee is refused meanwhile all the same: the check-in's transaction reads their state itself.
final class DirectoryCache: Sendable {
    private struct Entry<Value> {
        var value: Value
        var until: Date
    }

    private struct State {
        var sitesByID: [SiteID: Entry<SiteRecord>] = [:]
        var sitesByBeacon: [SiteBeacon: Entry<SiteRecord>] = [:]
        var employees: [UserID: Entry<Bool>] = [:]
    }

    static let lifetime: Double = 30
    static let capacity = 10_000
    private let state = Mutex(State())

    func site(id: SiteID, now: Date, load: () async throws -> SiteRecord?) async rethrows -> SiteRecord? {
        if let hit = state.withLock({ $0.sitesByID[id] }), hit.until > now { return hit.value }
        guard let site = try await load() else { return nil }
        state.withLock { Self.insert(site, into: &$0.sitesByID, key: id, now: now) }
        return site
    }

    func site(beacon: SiteBeacon, now: Date, load: () async throws -> SiteRecord?) async rethrows -> SiteRecord? {
        if let hit = state.withLock({ $0.sitesByBeacon[beacon] }), hit.until > now { return hit.value }
        guard let site = try await load() else { return nil }
        state.withLock { Self.insert(site, into: &$0.sitesByBeacon, key: beacon, now: now) }
        return site
    }

    func employeeExists(_ id: UserID, now: Date, load: () async throws -> Bool) async rethrows -> Bool {
        if let hit = state.withLock({ $0.employees[id] }), hit.until > now { return true }
        guard try await load() else { return false }
        state.withLock { Self.insert(true, into: &$0.employees, key: id, now: now) }
        return true
    }

    private static func insert<Key: Hashable, Value>(_ value: Value, into table: inout [Key: Entry<Value>], key: Key, now: Date) {
        if table.count >= capacity { table.removeAll(keepingCapacity: true) }
        table[key] = Entry(value: value, until: now.addingTimeInterval(lifetime))
    }
}
