import AttendanceModels
import AttendanceRules
import Foundation

/// The storage operations written once, over the port (`SQLDatabase`): each backend's repository
/// conforms by handing over its database, and keeps only what truly differs.
public protocol SQLStorage: Sendable {
    var database: any SQLDatabase { get }
}

extension SQLStorage {
    /// How a device event claims its key and writes its decision: on PostgreSQL with its prepared
    /// statements (a round trip each), elsewhere in portable SQL.
    package var ingestSteps: any IngestSteps {
        database.dialect == .postgresql ? PostgresIngestSteps() : PortableIngestSteps()
    }
}

extension SQLTransaction {
    /// Writes a ledger row in this transaction, its personal part sealed (`PersonalKeyRows`);
    /// returns its id. On PostgreSQL the row also joins
    /// the queue of rows the sealer has not sealed yet (ids commit out of order there).
    @discardableResult
    package func appendLedger(_ row: LedgerEvent) async throws -> Int64 {
        let event = try await row.sealed(in: self)
        let inserted = try await value(
            """
            INSERT INTO ledger_events (\(raw: LedgerRows.insertColumns))
            VALUES (\(event.kind.rawValue), \(event.sessionKey), \(event.userId), \(event.actor.rawValue),
                    \(event.receivedAt), \(event.deviceAt), \(String(decoding: event.payload, as: UTF8.self)),
                    \(event.personal.map { String(decoding: $0, as: UTF8.self) }), \(event.personalDigest),
                    \(event.hash))
            RETURNING id
            """, as: Int64.self)
        guard let id = inserted else {
            throw RepositoryError(kind: .conflict, detail: "the ledger row was not written")
        }
        if dialect == .postgresql { try await execute("INSERT INTO ledger_unsealed (event_id) VALUES (\(id))") }
        return id
    }

    /// Writes `audit` when the change it records happened; returns whether it did.
    @discardableResult
    package func audited(_ changed: Bool, _ audit: LedgerEvent?) async throws -> Bool {
        if changed, let audit { try await appendLedger(audit) }
        return changed
    }
}

extension SQLDatabase {
    /// Runs `body`; a unique constraint's refusal becomes a conflict saying `detail`.
    package func unique<T: Sendable>(_ detail: @autoclosure () -> String, _ body: () async throws -> T) async throws
        -> T
    {
        do { return try await body() } catch  where isUniqueViolation(error) {
            throw RepositoryError(kind: .conflict, detail: detail())
        }
    }
}
