import AttendanceModels
import AttendanceRules
import Foundation
import NIOCore
import PostgresNIO

/// A device event's two steps on PostgreSQL, one prepared statement each (prepared once per
/// connection, parameter types declared): the key's claim with everything `SessionLedger` reads,
/// and the ledger row, the absorbed pending events, the answer and the session.
package struct PostgresIngestSteps: IngestSteps {
    package func claimAndRead<Found>(
        _ tx: any SQLTransaction, _ slot: AnswerSlot<Found>, now: Date, sessionKey: SessionKey, site: SiteID?,
        user: UserID?
    ) async throws -> SessionContext {
        let postgres = try Self.transaction(tx)
        var binds = PostgresBindings(capacity: 8)
        binds.append(slot.scope)
        binds.append(slot.key)
        binds.append(slot.requestHash)
        binds.append(now.timeIntervalSince1970)
        binds.append(now.timeIntervalSince1970 - IdempotencyLease.seconds)
        binds.append(sessionKey.rawValue)
        binds.append(site?.rawValue)
        binds.append(user?.rawValue)
        let statement = ClaimAndRead(bindings: binds)
        for try await found in try await postgres.connection.execute(statement, logger: postgres.logger) {
            let row = try PostgresTransaction.row(found)
            var context = SessionContext(
                claim: .claimed, session: try SessionRows.session(row, at: 9), siteIsActive: try row.decode(6),
                employeeIsActive: try row.decode(7), pending: try Self.pendingEvents(json: try row.decode(8)))
            if try !row.decode(0, as: Bool.self) {
                if try row.decode(1, as: String?.self) != nil {
                    context.claim = try Idempotency.earlier(row, at: 1, requestHash: slot.requestHash)
                } else {
                    // The key's row committed by a transaction this one waited for is not in the
                    // statement's snapshot: read it again (a rare path).
                    context.claim = try await Idempotency.claim(
                        tx, scope: slot.scope, key: slot.key, requestHash: slot.requestHash, now: now)
                }
            }
            return context
        }
        throw RepositoryError(kind: .conflict, detail: "the claim of key '\(slot.key)' returned no row")
    }

    package func record(
        _ tx: any SQLTransaction, _ session: SessionRecord, createdAt: Date, row: LedgerEvent, absorbing: [Int64],
        answer: (scope: String, key: String, reply: StoredReply)
    ) async throws {
        let postgres = try Self.transaction(tx)
        var binds = PostgresBindings(capacity: 38)
        // A device event carries no personal part; one that did is sealed like any other row.
        Self.bindLedger(try await row.sealed(in: tx), into: &binds)
        binds.append(answer.reply.status)
        binds.append(answer.reply.contentType)
        binds.append(ByteBuffer(data: answer.reply.body))
        binds.append(answer.scope)
        binds.append(answer.key)
        binds.append(absorbing)
        Self.bindSession(session, createdAt: createdAt, into: &binds)
        _ = try await postgres.connection.execute(RecordAnswerAndUpsert(bindings: binds), logger: postgres.logger)
    }

    private static func transaction(_ tx: any SQLTransaction) throws -> PostgresTransaction {
        guard let postgres = tx as? PostgresTransaction else {
            throw RepositoryError(kind: .conflict, detail: "PostgreSQL's steps ran on a \(tx.dialect) transaction")
        }
        return postgres
    }

    /// The pending events as `claimAndReadSQL` aggregates them: [[id, kind, at, reason, user, source], …].
    package static func pendingEvents(json: String?) throws -> [SessionLedger.PendingEvent] {
        guard let json else { return [] }
        guard let rows = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[Any]] else {
            throw RepositoryError(kind: .conflict, detail: "pending events were not rows: \(json.prefix(200))")
        }
        return try rows.map { row in
            guard row.count == 6, let id = (row[0] as? NSNumber)?.int64Value, let kind = row[1] as? String,
                let at = (row[2] as? NSNumber)?.doubleValue
            else {
                throw StoredValueError(
                    table: "pending_session_events", row: "\(row.first ?? "?")", column: "(aggregated)",
                    value: "\(row)", expected: "[id, kind, at, reason, user_id, source]")
            }
            return SessionLedger.PendingEvent(
                id: id,
                kind: try StoredValue.decode(
                    kind, as: SessionEventCommand.Kind.self, table: "pending_session_events", row: "\(id)",
                    column: "kind"),
                at: Date(timeIntervalSince1970: at), reason: row[3] as? String,
                userId: (row[4] as? String).map { UserID($0) },
                source: try StoredValue.decode(
                    row[5] as? String, as: EventSource.self, table: "pending_session_events", row: "\(id)",
                    column: "source"))
        }
    }

    /// A ledger row's columns but its id, which the database assigns.
    package static let ledgerColumns = Array(LedgerRows.names.dropFirst())

    /// Binds the row's values, in `ledgerColumns` order, each with its own type (a NULL too).
    package static func bindLedger(_ event: LedgerEvent, into binds: inout PostgresBindings) {
        binds.append(event.kind.rawValue)
        binds.append(event.sessionKey?.rawValue)
        binds.append(event.userId?.rawValue)
        binds.append(event.actor.rawValue)
        binds.append(event.receivedAt.timeIntervalSince1970)
        binds.append(event.deviceAt?.timeIntervalSince1970)
        binds.append(String(decoding: event.payload, as: UTF8.self))
        binds.append(event.personal.map { String(decoding: $0, as: UTF8.self) })
        binds.append(event.personalDigest)
        binds.append(event.hash)
    }

    /// Binds the session's values, in `SessionRows.writeNames` order, each with its own type.
    package static func bindSession(_ session: SessionRecord, createdAt: Date, into binds: inout PostgresBindings) {
        let evidence = session.evidence
        binds.append(session.sessionKey.rawValue)
        binds.append(session.userId.rawValue)
        binds.append(session.siteId.rawValue)
        binds.append(session.deviceId?.rawValue)
        binds.append(session.checkInAt.timeIntervalSince1970)
        binds.append(session.checkOutAt?.timeIntervalSince1970)
        binds.append(session.checkOutReason)
        binds.append(session.lastSeenAt.timeIntervalSince1970)
        binds.append(session.source.rawValue)
        binds.append(createdAt.timeIntervalSince1970)
        binds.append(evidence.checkInReason)
        binds.append(evidence.checkOutSource?.rawValue)
        binds.append(evidence.appVersion)
        binds.append(evidence.rule)
        binds.append(evidence.sampleCount)
        binds.append(evidence.medianRSSI)
        binds.append(evidence.stdevDB)
        binds.append(evidence.walking)
        binds.append(evidence.clockSkewSeconds)
        binds.append(session.corrected)
        binds.append(session.voidedAt?.timeIntervalSince1970)
        binds.append(session.voidReason)
    }

    package static let claimAndReadSQL = """
        WITH claim AS (
            INSERT INTO idempotency_keys (scope, key, request_hash, state, created_at)
            VALUES ($1, $2, $3, 'inFlight', $4)
            ON CONFLICT (scope, key) DO UPDATE
                SET request_hash = EXCLUDED.request_hash, created_at = EXCLUDED.created_at
            WHERE idempotency_keys.state = 'inFlight' AND idempotency_keys.created_at < $5
            RETURNING 1)
        SELECT EXISTS (SELECT 1 FROM claim), k.request_hash, k.state, k.status, k.content_type, k.body,
            (SELECT deactivated_at IS NULL FROM sites WHERE id = $7::text),
            (SELECT deactivated_at IS NULL FROM employees WHERE id = $8::text),
            (SELECT json_agg(json_build_array(p.id, p.kind, p.at, p.reason, p.user_id, p.source) ORDER BY p.id)::text
                FROM pending_session_events AS p WHERE p.session_key = $6),
            \(SessionRows.columns(alias: "s"))
        FROM (SELECT 1) AS one
        LEFT JOIN idempotency_keys AS k ON k.scope = $1 AND k.key = $2
        LEFT JOIN sessions AS s ON s.session_key = $6
        """

    /// The ledger row (binds $1…$10) and its place in the sealer's queue, the key's answer ($11…$15:
    /// status, content type, body, scope, key), the absorbed pending events ($16) and the session
    /// upsert ($17…), in one statement.
    package static let recordAnswerAndUpsertSQL: String = {
        let ledger = ledgerColumns.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
        let session = SessionRows.writeNames.indices.map { "$\($0 + 17)" }.joined(separator: ", ")
        return """
            WITH row AS (
                INSERT INTO ledger_events (\(LedgerRows.insertColumns)) VALUES (\(ledger)) RETURNING id),
            queued AS (INSERT INTO ledger_unsealed (event_id) SELECT id FROM row),
            answered AS (
                UPDATE idempotency_keys SET state = 'done', status = $11, content_type = $12, body = $13
                WHERE scope = $14 AND key = $15),
            absorbed AS (DELETE FROM pending_session_events WHERE id = ANY($16::bigint[]))
            INSERT INTO sessions (\(SessionRows.writeNames.joined(separator: ", "))) VALUES (\(session))
            ON CONFLICT (session_key) DO UPDATE SET \(SessionRows.upsertSet)
            """
    }()

    /// `claimAndReadSQL`: the key's claim and what `SessionLedger` needs, in one row.
    package struct ClaimAndRead: PostgresPreparedStatement {
        package static let sql = PostgresIngestSteps.claimAndReadSQL
        /// scope, key, request hash, now, the lease's start, session key, site, user.
        package static let bindingDataTypes: [PostgresDataType] = [
            .text, .text, .text, .float8, .float8, .text, .text, .text,
        ]
        package typealias Row = PostgresRow

        package var bindings: PostgresBindings

        package func makeBindings() throws -> PostgresBindings { bindings }
        package func decodeRow(_ row: PostgresRow) throws -> Row { row }
    }

    /// `recordAnswerAndUpsertSQL`, in one statement.
    package struct RecordAnswerAndUpsert: PostgresPreparedStatement {
        package static let sql = PostgresIngestSteps.recordAnswerAndUpsertSQL
        package static let bindingDataTypes: [PostgresDataType] =
            // The ledger row (`ledgerColumns`).
            [.text, .text, .text, .text, .float8, .float8, .text, .text, .text, .text]
            // The answer: status, content type, body, scope, key; the absorbed pending ids.
            + [.int8, .text, .bytea, .text, .text, .int8Array]
            // The session (`SessionRows.writeNames`).
            + [.text, .text, .text, .text, .float8, .float8, .text, .float8, .text, .float8, .text]
            + [.text, .text, .text, .int8, .float8, .float8, .bool, .float8, .bool, .float8, .text]
        package typealias Row = ()

        package var bindings: PostgresBindings

        package func makeBindings() throws -> PostgresBindings { bindings }
        package func decodeRow(_ row: PostgresRow) throws -> Row {}
    }
}
