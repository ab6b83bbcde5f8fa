import AttendanceModels
import AttendanceRules
import Foundation

/// The keys that seal the ledger's personal parts (`PersonalSeal`), one per subject (an employee,
/// else the record an action was on), in `personal_keys`: a table of their own, apart from the
/// rows and outside the hash chain. Erasing a person deletes their key; the rows they are named in
/// stay, verifiable, and unreadable.
package enum PersonalKeyRows {
    /// `subject`'s key, made on its first use in this transaction's commit.
    package static func key(_ tx: any SQLTransaction, for subject: String, now: Date) async throws -> [UInt8] {
        try await tx.execute(
            """
            INSERT INTO personal_keys (subject, key, created_at) VALUES (\(subject), \(Data(PersonalSeal.newKey())),
                \(now))
            ON CONFLICT (subject) DO NOTHING
            """)
        guard let key = try await tx.value("SELECT key FROM personal_keys WHERE subject = \(subject)", as: Data.self)
        else {
            throw RepositoryError(kind: .conflict, detail: "the personal key of '\(subject)' was not written")
        }
        return Array(key)
    }

    /// The keys of `subjects` that exist (an erased subject has none).
    package static func keys(_ tx: any SQLTransaction, for subjects: Set<String>) async throws -> [String: [UInt8]] {
        guard !subjects.isEmpty else { return [:] }
        var keys: [String: [UInt8]] = [:]
        for row in try await tx.query(
            "SELECT subject, key FROM personal_keys WHERE subject \(anyOf: subjects.sorted())")
        {
            keys[try row.decode(0, as: String.self)] = Array(try row.decode(1, as: Data.self))
        }
        return keys
    }

    /// Deletes `subject`'s key: everything sealed with it can't be read again.
    package static func delete(_ tx: any SQLTransaction, subject: String) async throws {
        try await tx.execute("DELETE FROM personal_keys WHERE subject = \(subject)")
    }

    /// `events` with their personal parts opened (`LedgerEvent.opening(with:)`), their subjects'
    /// keys read at once; a part that doesn't open is an error naming its row.
    package static func open(_ events: [LedgerEvent], _ tx: any SQLTransaction) async throws -> [LedgerEvent] {
        let keys = try await keys(tx, for: Set(events.compactMap { $0.personal == nil ? nil : $0.personalSubject }))
        return try events.map { event in
            do { return try event.opening(with: keys) } catch {
                throw StoredValueError(
                    table: "ledger_events", row: "\(event.id)", column: "personal", value: "\(error)",
                    expected: "a personal part that opens with its subject's key")
            }
        }
    }
}

extension LedgerEvent {
    /// This row with its personal part sealed under its subject's key, made in `tx` when new.
    package func sealed(in tx: any SQLTransaction) async throws -> LedgerEvent {
        guard let subject = sealingSubject else { return self }
        return try sealingPersonal(key: try await PersonalKeyRows.key(tx, for: subject, now: receivedAt))
    }
}
