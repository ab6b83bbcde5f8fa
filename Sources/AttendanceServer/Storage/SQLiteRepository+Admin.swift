import AttendanceModels
import Foundation
import GRDB

extension SQLiteRepository {



    /// Writes `audit` when `changed`; returns `changed`.
    static func audited(_ changed: Bool, _ audit: LedgerEvent?, db: Database) throws -> Bool {
        if changed, let audit { try append(audit, db: db) }
        return changed
    }








}
