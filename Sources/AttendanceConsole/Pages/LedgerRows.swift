import AttendanceModels
import AttendanceRules
import Foundation

/// How the console shows a ledger row's content.
enum LedgerRows {
    /// The row's reason, or, for a row this release can't read, why (never a blank that hides it).
    static func reason(_ entry: LedgerEvent, words: Words) -> String {
        do {
            return try entry.record().reason
        } catch {
            return words.t("unreadable row: %@", "\(error)")
        }
    }

    /// Each changed field with its old and new value, `checkOutAt: 16:00 → 17:00`, one per line;
    /// times in `zone`, written in `language`. A value that was absent shows as "—".
    static func changes(_ entry: LedgerEvent, zone: String, in language: Language) -> [String] {
        guard let record = try? entry.record() else { return [] }
        return record.changes.keys.sorted().map { field in
            let change = record.changes[field]
            let before = shown(change?.before, zone: zone, language)
            return "\(field): \(before) → \(shown(change?.after, zone: zone, language))"
        }
    }

    private static func shown(_ value: String?, zone: String, _ language: Language) -> String {
        guard let value, !value.isEmpty else { return "—" }
        if value.count >= 20, value.count <= 35, let time = try? RFC3339.parse(value) {
            return LocalTime.text(time, zone: zone, in: language)
        }
        return value
    }

    /// When the row's event happened: the device's time for a device event (a check-in at 08:00
    /// that reached the server at 20:48 shows 08:00), the server's for everything else.
    static func happenedAt(_ entry: LedgerEvent) -> (at: Date, received: Date?) {
        guard let device = entry.deviceAt else { return (entry.receivedAt, nil) }
        return (device, abs(entry.receivedAt.timeIntervalSince(device)) >= 60 ? entry.receivedAt : nil)
    }
}
