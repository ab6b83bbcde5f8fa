import PostgresNIO

/// The two statements of every device event, prepared once per connection: PostgreSQL parses and
/// plans them once instead of on every request. Their parameter types are declared, in the
/// order the repository binds them, so that the server never has to infer one.
extension PostgresRepository {
    /// `claimAndReadSQL`: the key's claim and what `SessionLedger` needs, in one row.
    struct ClaimAndRead: PostgresPreparedStatement {
        static let sql = PostgresRepository.claimAndReadSQL
        /// scope, key, request hash, now, the lease's start, session key, site, user.
        static let bindingDataTypes: [PostgresDataType] = [
            .text, .text, .text, .float8, .float8, .text, .text, .text,
        ]
        typealias Row = PostgresRandomAccessRow

        var bindings: PostgresBindings

        func makeBindings() throws -> PostgresBindings { bindings }
        func decodeRow(_ row: PostgresRow) throws -> Row { row.makeRandomAccess() }
    }

    /// `recordAnswerAndUpsertSQL`: the ledger row, the absorbed pending events, the stored answer
    /// and the session, in one statement.
    struct RecordAnswerAndUpsert: PostgresPreparedStatement {
        static let sql = PostgresRepository.recordAnswerAndUpsertSQL
        static let bindingDataTypes: [PostgresDataType] =
            // The ledger row (`ledgerInsertColumns`).
            [.text, .text, .text, .text, .float8, .float8, .text, .text, .text, .text]
            // The answer: status, content type, body, scope, key; the absorbed pending ids.
            + [.int8, .text, .bytea, .text, .text, .int8Array]
            // The session (`sessionUpsertColumns`).
            + [.text, .text, .text, .text, .float8, .float8, .text, .float8, .text, .float8, .text]
            + [.text, .text, .text, .int8, .float8, .float8, .bool, .float8, .bool, .float8, .text]
        typealias Row = ()

        var bindings: PostgresBindings

        func makeBindings() throws -> PostgresBindings { bindings }
        func decodeRow(_ row: PostgresRow) throws -> Row {}
    }
}
