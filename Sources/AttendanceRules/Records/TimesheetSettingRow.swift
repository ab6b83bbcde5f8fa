import AttendanceModels
import Foundation

/// One stored timesheet setting: a schedule, an assignment, a site's rules, a holiday or a leave
/// day, its body the JSON of `TimesheetSettingCodec`. One table holds them all, so the settings'
/// rules live in the pure code above it and the two backends only store rows.
public struct TimesheetSettingRow: Hashable, Sendable {
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        case schedule, assignment, siteRules, holiday, leave, payCycle
    }

    public var kind: Kind
    /// Unique within the kind: a schedule's id, `<siteId>/<date>` for a holiday…
    public var id: String
    public var userId: UserID?
    public var siteId: SiteID?
    /// The day it is about (holidays and leave), for range reads.
    public var date: LocalDate?
    public var body: Data
    public var updatedAt: Date

    public init(
        kind: Kind, id: String, userId: UserID? = nil, siteId: SiteID? = nil, date: LocalDate? = nil, body: Data,
        updatedAt: Date
    ) {
        self.kind = kind
        self.id = id
        self.userId = userId
        self.siteId = siteId
        self.date = date
        self.body = body
        self.updatedAt = updatedAt
    }
}
