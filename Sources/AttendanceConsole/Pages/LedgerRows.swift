import AttendanceRules

/// How the console shows a ledger row's content.
enum LedgerRows {
    /// The row's reason, or, for a row this release can't read, why (never a blank that hides it).
    static func reason(_ entry: LedgerEvent) -> String {
        do {
            return try entry.record().reason
        } catch {
            return "unreadable row: \(error)"
        }
    }
}
