import AttendanceAppCore
import Testing

@Suite struct NotificationRouteTests {
    @Test func theManualPromptOpensTheManualCheckInByItsActionOrATap() {
        let category = NotificationRoute.manualCheckInCategory
        #expect(
            NotificationRoute.route(category: category, action: NotificationRoute.openManualCheckInAction)
                == .manualCheckIn)
        #expect(NotificationRoute.route(category: category, action: NotificationRoute.tapAction) == .manualCheckIn)
        #expect(NotificationRoute.route(category: category, action: NotificationRoute.dismissAction) == nil)
    }

    @Test func remindersOpenToday() {
        #expect(NotificationRoute.route(category: "", action: NotificationRoute.tapAction) == .today)
        #expect(NotificationRoute.route(category: "", action: NotificationRoute.dismissAction) == nil)
    }

    @Test func onlyTheManualPromptIsShownWhileTheAppIsOpen() {
        #expect(NotificationRoute.showsInForeground(category: NotificationRoute.manualCheckInCategory))
        #expect(!NotificationRoute.showsInForeground(category: ""))
    }
}
