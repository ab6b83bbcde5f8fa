import AttendanceModels
import Foundation

extension Timesheet {
    package struct RowKey: Hashable {
        package var userId: UserID
        package var siteId: SiteID
        package var date: LocalDate
    }

    /// Every employee's timesheet from one input, employees in id order: the same rules as
    /// `TimesheetCalculator`, which an export runs one employee at a time.
    public static func compute(_ input: TimesheetInput) -> Timesheet {
        let calculator = TimesheetCalculator(
            from: input.from, through: input.through, now: input.now, sites: input.sites, schedules: input.schedules)
        var employees: [UserID: EmployeeTimesheetInput] = [:]
        func touch(_ user: UserID, _ change: (inout EmployeeTimesheetInput) -> Void) {
            var employee =
                employees[user]
                ?? EmployeeTimesheetInput(
                    userId: user, hasDevice: input.employeesWithDevices.contains(user),
                    lastHeard: input.lastHeard[user], pendingRequestSessions: input.pendingRequestSessions)
            change(&employee)
            employees[user] = employee
        }
        for session in input.sessions { touch(session.userId) { $0.sessions.append(session) } }
        for assignment in input.assignments { touch(assignment.userId) { $0.assignments.append(assignment) } }
        for day in input.leave { touch(day.userId) { $0.leave.append(day) } }
        for addition in input.pendingAdditions { touch(addition.userId) { $0.pendingAdditions.append(addition) } }

        var sheet = Timesheet(from: input.from, through: input.through, days: [], weeks: [])
        for user in employees.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let employee = employees[user] else { continue }
            let (days, weeks) = calculator.employee(employee)
            sheet.days += days
            sheet.weeks += weeks
        }
        return sheet
    }
}

/// Whole minutes from seconds, to the nearest.
package func minutes(_ seconds: Double) -> Int { Int((seconds / 60).rounded()) }
