import AttendanceModels
import Foundation

/// The kinds of timesheet setting, as the audit trail names them (`timesheetSetting.saved`'s
/// target is `<kind>/<id>`).
public enum TimesheetSettingKind: String, CaseIterable, Hashable, Sendable {
    case schedule, assignment, siteRules, holiday, leave, payCycle
}

/// A site's public holiday: a day no work is expected.
public struct Holiday: Hashable, Sendable {
    public var siteId: SiteID
    public var date: LocalDate
    public var name: String

    public init(siteId: SiteID, date: LocalDate, name: String) {
        self.siteId = siteId
        self.date = date
        self.name = name
    }
}

/// One timesheet setting as it is stored: each kind in its own table with typed columns.
public enum TimesheetSetting: Hashable, Sendable {
    case schedule(WorkSchedule)
    case assignment(ScheduleAssignment)
    case siteRules(SiteID, SiteRules)
    case holiday(Holiday)
    case leave(LeaveDay)
    case payCycle(PayCycleSetting)

    public var key: TimesheetSettingKey {
        switch self {
        case .schedule(let schedule): .schedule(schedule.id)
        case .assignment(let assignment): .assignment(assignment.id)
        case .siteRules(let siteId, _): .siteRules(siteId)
        case .holiday(let holiday): .holiday(holiday.siteId, holiday.date)
        case .leave(let leave): .leave(leave.userId, leave.date)
        case .payCycle(let cycle): .payCycle(cycle.effectiveFrom)
        }
    }

    /// The employee the setting is about (assignments and leave), for its audit row.
    public var userId: UserID? {
        switch self {
        case .assignment(let assignment): assignment.userId
        case .leave(let leave): leave.userId
        case .schedule, .siteRules, .holiday, .payCycle: nil
        }
    }
}

/// What names one stored setting: its table's key.
public enum TimesheetSettingKey: Hashable, Sendable {
    case schedule(ScheduleID)
    case assignment(AssignmentID)
    case siteRules(SiteID)
    case holiday(SiteID, LocalDate)
    case leave(UserID, LocalDate)
    /// A pay cycle is named by the day it takes effect.
    case payCycle(LocalDate)

    public var kind: TimesheetSettingKind {
        switch self {
        case .schedule: .schedule
        case .assignment: .assignment
        case .siteRules: .siteRules
        case .holiday: .holiday
        case .leave: .leave
        case .payCycle: .payCycle
        }
    }

    /// The id the audit trail shows: a schedule's id, `<siteId>/<date>` for a holiday…
    public var id: String {
        switch self {
        case .schedule(let id): id.rawValue
        case .assignment(let id): id.rawValue
        case .siteRules(let siteId): siteId.rawValue
        case .holiday(let siteId, let date): "\(siteId.rawValue)/\(date)"
        case .leave(let userId, let date): "\(userId.rawValue)/\(date)"
        case .payCycle(let from): from.description
        }
    }
}

/// A site's timesheet rules and its default schedule, as stored.
public struct SiteRules: Hashable, Sendable {
    public var policy: TimesheetPolicy
    public var defaultScheduleId: ScheduleID?

    public init(policy: TimesheetPolicy = TimesheetPolicy(), defaultScheduleId: ScheduleID? = nil) {
        self.policy = policy
        self.defaultScheduleId = defaultScheduleId
    }
}
