import AttendanceModels
import Foundation

// The local notifications that make up for an app iOS cannot run: the resume reminders (after a
// force-quit), the arrival reminders iOS shows on entry, and the prompt to check in by hand
// while automatic detection cannot work.
extension Engine {
    static let reminderPushBackSeconds: Double = 900

    /// The app is running: the resume reminders move to 1, 2, … `resumeReminderCount` times
    /// `resumeReminderHours` from now (at most once every 15 minutes). Only with Always access:
    /// without it nothing runs in the background anyway, and the manual prompt covers it.
    mutating func pushBackResumeReminder(at now: Date, _ actions: inout [EngineAction]) {
        let hours = configuration.resumeReminderHours
        guard hours > 0, permissions.location == .always else { return }
        let due = now.addingTimeInterval(hours * 3_600)
        if let reminderAt, reminderAt > now, due.timeIntervalSince(reminderAt) < Self.reminderPushBackSeconds {
            return
        }
        reminderAt = due
        for sequence in 1...max(1, configuration.resumeReminderCount) {
            actions.append(
                .notify(
                    LocalNotification(
                        kind: .resumeReminder, title: LocalizedText("Automatic check-in is paused"),
                        body: LocalizedText(
                            "Beacon Attendance has not run for %@. If you closed it from the app switcher, "
                                + "iPhone won't start it at work. Open it to resume automatic check-in.",
                            .text(Self.hoursText(hours * Double(sequence)))),
                        deliverAt: now.addingTimeInterval(hours * 3_600 * Double(sequence)), sequence: sequence)))
        }
    }

    static func hoursText(_ hours: Double) -> LocalizedText {
        if hours == 1 { return LocalizedText("1 hour") }
        if hours.rounded() == hours { return LocalizedText("%lld hours", .count(Int(hours))) }
        return LocalizedText("%@ hours", .verbatim(String(format: "%.1f", hours)))
    }

    /// The arrival reminders of `regions`' UUIDs, (re)scheduled: iOS holds one per UUID-wide
    /// region (one system region whatever the number of sites; walking from one site to the next
    /// is no new arrival) and shows it on each entry whether or not the app can run. Scheduling it
    /// again withdraws the one shown, so an employee sees it only when the app did not run on
    /// arrival (after a force-quit). Only with Always access, like the resume reminder.
    func armArrivalReminders(for regions: [BeaconRegion], _ actions: inout [EngineAction]) {
        let armed = Set(arrivalReminderRegions)
        for region in Set(regions.map { BeaconRegion(uuid: $0.uuid) }).sorted() where armed.contains(region) {
            actions.append(
                .notify(
                    LocalNotification(
                        kind: .arrivalReminder, title: LocalizedText("Arrived at work?"),
                        body: LocalizedText(
                            "Beacon Attendance did not start when you arrived, so it has not checked you in. "
                                + "If you closed it from the app switcher, iPhone won't start it at work. "
                                + "Open it to check in."
                        ),
                        region: region)))
        }
    }

    /// The regions that have an arrival reminder: each monitored UUID's, with Always access and
    /// `arrivalReminders` on.
    var arrivalReminderRegions: [BeaconRegion] {
        guard configuration.arrivalReminders, permissions.location == .always else { return [] }
        return Set(monitoredRegions.map(\.uuid)).map { BeaconRegion(uuid: $0) }.sorted()
    }

    /// Withdraws the arrival reminders of `uuids` (iOS holds them until told otherwise).
    func withdrawArrivalReminders(_ uuids: Set<UUID>, _ actions: inout [EngineAction]) {
        for uuid in uuids.sorted(by: { $0.uuidString < $1.uuidString }) {
            let identifier = LocalNotification.identifier(.arrivalReminder, region: BeaconRegion(uuid: uuid))
            actions.append(.withdrawNotification(identifier))
        }
    }

    /// Automatic detection cannot work (permissions): the employee is asked to check in by hand,
    /// unless checked in already, at most once every `manualPromptMinIntervalSeconds`.
    mutating func promptForManualCheckInIfNeeded(at now: Date, _ actions: inout [EngineAction]) {
        let blockers = permissions.automaticDetectionBlockers
        guard !blockers.isEmpty, openSessions.isEmpty,
            lastPromptAt.map({ now.timeIntervalSince($0) >= configuration.manualPromptMinIntervalSeconds }) ?? true
        else { return }
        lastPromptAt = now
        actions.append(
            .notify(
                LocalNotification(
                    kind: .manualCheckInPrompt, title: LocalizedText("Check in by hand"),
                    body: LocalizedText(
                        "Automatic check-in can't work right now: %@. Open the app to check in, or change this "
                            + "in Settings.",
                        .text(LocalizedText.list(permissions.automaticDetectionBlockerTexts, separator: "; "))))))
    }
}
