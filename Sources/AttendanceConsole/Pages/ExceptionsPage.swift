import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import Hummingbird

/// What needs a person: days whose end is unconfirmed or that are open past their schedule (the
/// timesheet rules decide both), pending requests, changes after a locked period, devices silent
/// for a day, devices whose detection the phone blocks (its last `DeviceState`).
extension Console {
    /// An open session with no schedule is listed once it has been open this long.
    static let openTooLongWithoutSchedule: TimeInterval = 12 * 3_600
    /// Pending requests listed here; the Requests page pages through the rest.
    static let pendingShown = 100

    func registerExceptions(on console: RouterGroup<AttendanceRequestContext>) {
        console.get(
            "exceptions",
            use: signedIn("exceptions", needs: .readSessions) { _, _, viewer, form in
                return page(
                    "exceptions", title: viewer.t("Exceptions"), viewer: viewer, try await exceptionData(viewer))
            })
    }

    private func exceptionData(_ viewer: Viewer) async throws -> [String: Any] {
        let now = environment.now()
        // UTC's date; a site east of UTC may already be a day on, so the days run through tomorrow.
        let today = LocalDate(dayNumber: Int((now.timeIntervalSince1970 / 86_400).rounded(.down)))
        let sites = try await services.repository.sites()
        let zone = Self.readingZones(sites, viewer)[0]
        let siteNames = Dictionary(sites.map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        let names = Dictionary(
            try await services.repository.employees().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        func person(_ id: UserID) -> String { names[id] ?? id.rawValue }
        let language = viewer.language
        var unconfirmed: [[String: Any]] = []
        var openTooLong: [[String: Any]] = []
        if viewer.may(.readTimesheets) || viewer.may(.readSessions) {
            _ = try await services.timesheets.forEachEmployee(
                TimesheetQuery(from: today.adding(days: -7), through: today.adding(days: 1))
            ) { sheet in
                for day in sheet.days where viewer.scope.permits(day.siteId) {
                    let row: [String: Any] = [
                        "name": sheet.employee.name, "user": day.userId.rawValue, "date": language.date(day.date),
                        "site": siteNames[day.siteId] ?? day.siteId.rawValue,
                        "firstIn": LocalTime.text(day.firstIn, zone: day.timeZone, in: language),
                        "proposedEnd": LocalTime.text(day.proposedEnd, zone: day.timeZone, in: language),
                        "scheduledEnd": LocalTime.text(day.scheduledEnd, zone: day.timeZone, in: language),
                        "sessions": "/console/sessions?user=\(day.userId.rawValue)&from=\(day.date)&to=\(day.date)",
                    ]
                    if day.flags.contains(.endUnconfirmed) { unconfirmed.append(row) }
                    if day.flags.contains(.open),
                        let end = day.scheduledEnd.map({ $0 < now })
                            ?? day.firstIn.map({ now.timeIntervalSince($0) > Self.openTooLongWithoutSchedule }), end
                    {
                        openTooLong.append(row)
                    }
                }
            }
        }
        // The newest pending ones; the Requests page pages through them all.
        let pendingPage = try await services.requests.page(
            userId: nil, state: .pending, scope: viewer.scope, before: nil, limit: Self.pendingShown)
        let pending = pendingPage.items
            .map { ["id": $0.id, "user": person($0.userId), "reason": $0.reason] as [String: Any] }
        var afterLock: [[String: Any]] = []
        if viewer.may(.readTimesheets) {
            for period in try await services.payPeriods.periods(from: today.adding(days: -120), through: today)
            where period.state == .locked {
                for exception in try await services.payPeriods.exceptions(start: period.dates.start)
                where viewer.scope.permits(exception.siteId) {
                    afterLock.append([
                        "period": language.date(period.dates.start), "user": person(exception.userId),
                        "date": language.date(exception.date), "changed": exception.changed.joined(separator: ", "),
                    ])
                }
            }
        }
        let devices = viewer.may(.readDirectory) ? try await services.repository.devices(userId: nil) : []
        let silent: [[String: Any]] =
            devices
            .filter { $0.revokedAt == nil && now.timeIntervalSince($0.lastSeenAt ?? $0.enrolledAt) > 86_400 }
            .map {
                [
                    "id": $0.id.rawValue, "user": person($0.userId), "deviceName": $0.deviceName ?? "",
                    "lastSeen": $0.lastSeenAt.map { LocalTime.text($0, zone: zone, in: language) }
                        ?? viewer.t("never"),
                ]
            }
        let blocked: [[String: Any]] = devices.compactMap { device in
            guard device.revokedAt == nil, let state = device.state, !state.blockers.isEmpty else { return nil }
            return [
                "id": device.id.rawValue, "user": person(device.userId), "deviceName": device.deviceName ?? "",
                // The core's sentences, in the viewer's language where the catalogue has them.
                "why": state.blockers.map(viewer.words.known).joined(separator: "; "),
                "observed": LocalTime.text(state.observedAt, zone: zone, in: language),
            ]
        }
        return [
            "unconfirmed": unconfirmed, "noUnconfirmed": unconfirmed.isEmpty,
            "openTooLong": openTooLong, "noOpenTooLong": openTooLong.isEmpty,
            "pending": pending, "noPending": pending.isEmpty, "morePending": pendingPage.next != nil,
            "afterLock": afterLock, "noAfterLock": afterLock.isEmpty,
            "silent": silent, "noSilent": silent.isEmpty,
            "blocked": blocked, "noBlocked": blocked.isEmpty,
        ]
    }
}
