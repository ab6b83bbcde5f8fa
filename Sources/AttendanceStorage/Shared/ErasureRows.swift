import AttendanceModels
import AttendanceRules
import Foundation

/// What erasing an employee removes besides their name (docs/LEDGER.md, "Erasure"): the key that
/// sealed their ledger rows' personal parts and those parts, their phones' names and stored answers,
/// their name on the site surveys they took,
/// their requests' free text, their leave days, and the leave type of their locked pay-period rows.
/// The hours stay: a session, a locked row and every ledger row's hash are the employer's record.
package enum ErasureRows {
    package static func erase(_ tx: any SQLTransaction, _ id: UserID) async throws {
        try await PersonalKeyRows.delete(tx, subject: id.rawValue)
        try await tx.execute(
            "UPDATE ledger_events SET personal = NULL WHERE user_id = \(id) AND personal IS NOT NULL")
        // Leave days (their type and note can be health data) go with the person.
        try await tx.execute("DELETE FROM leave_days WHERE user_id = \(id)")
        try await tx.execute("UPDATE devices SET device_name = NULL WHERE user_id = \(id)")
        try await tx.execute("UPDATE site_surveys SET user_id = NULL WHERE user_id = \(id)")
        try await tx.execute(
            """
            DELETE FROM idempotency_keys
            WHERE scope IN (SELECT 'device:' || d.id FROM devices d WHERE d.user_id = \(id))
            """)
        try await tx.execute(
            "UPDATE correction_requests SET reason = '', evidence = '{}', comment = NULL WHERE user_id = \(id)")
        try await tx.execute("UPDATE sessions SET void_reason = '' WHERE user_id = \(id) AND void_reason IS NOT NULL")
        // What the employee typed for a manual check-in or check-out, and the reason a session was
        // added with (its check-in's reason): the ledger's copy is sealed, these go.
        try await tx.execute(
            """
            UPDATE sessions SET check_in_reason = '' WHERE user_id = \(id) AND source = 'manual'
                AND check_in_reason IS NOT NULL
            """)
        try await tx.execute(
            """
            UPDATE sessions SET check_out_reason = '' WHERE user_id = \(id) AND check_out_source = 'manual'
                AND check_out_reason IS NOT NULL
            """)
        try await tx.execute(
            """
            UPDATE pending_session_events SET reason = '' WHERE user_id = \(id) AND source = 'manual'
                AND reason IS NOT NULL
            """)
        for row in try await tx.query(
            "SELECT period_start, site_id, date, \"row\" FROM locked_days WHERE user_id = \(id)")
        {
            guard let erased = TimesheetDayCodec.erasingLeave(try row.decode(3, as: Data.self)) else { continue }
            try await tx.execute(
                """
                UPDATE locked_days SET "row" = \(String(decoding: erased, as: UTF8.self))
                WHERE user_id = \(id) AND site_id = \(try row.decode(1, as: String.self))
                    AND date = \(try row.decode(2, as: String.self))
                """)
        }
    }
}
