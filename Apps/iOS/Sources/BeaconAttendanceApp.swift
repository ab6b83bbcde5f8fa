#if canImport(SwiftUI) && os(iOS)
import AttendanceApple
import AttendanceEngine
import SwiftUI
import UIKit

/// Creates the Apple device on every launch, including iOS's background relaunches for a
/// region event, a location change, a background task or a background URLSession.
final class AppDelegate: NSObject, UIApplicationDelegate {
    @MainActor static var shared: AppleDevice?

    func application(
        _ application: UIApplication, didFinishLaunchingWithOptions options: [UIApplication.LaunchOptionsKey: Any]?
    ) -> Bool {
        // With the SwiftUI lifecycle `options` is nil for region, location and URLSession
        // relaunches: a background launch is named by the first callback that arrives. The launch
        // is the inbox's first input (AppleDevice posts it before wiring any callback).
        let reason: LaunchReason? =
            options?[.bluetoothCentrals] != nil
            ? .bluetoothEvent : application.applicationState == .background ? nil : .userOpened
        let apple = AppleDevice(launch: reason)
        Self.shared = apple
        BackgroundRefresh.schedule { context, error in apple.telemetry.error(context, error) }
        return true
    }

    func application(
        _ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {
        Self.shared?.handleBackgroundSessionEvents(completionHandler)
    }
}

@main
struct BeaconAttendanceApp: App {
    @UIApplicationDelegateAdaptor(AppDelegate.self) private var delegate
    @StateObject private var model = AppModel()

    var body: some Scene {
        WindowGroup {
            RootView()
                .environmentObject(model)
                .task { model.attach(AppDelegate.shared) }
        }
    }
}

struct RootView: View {
    @EnvironmentObject private var model: AppModel
    @State private var tab = "today"

    var body: some View {
        if model.status == nil {
            NavigationStack { EnrollmentView() }
        } else {
            TabView(selection: $tab) {
                NavigationStack { TodayView() }
                    .tabItem { Label("Today", systemImage: "clock") }
                    .tag("today")
                NavigationStack { HistoryView() }
                    .tabItem { Label("History", systemImage: "calendar") }
                    .tag("history")
                NavigationStack { WeekView() }
                    .tabItem { Label("Week", systemImage: "calendar.badge.clock") }
                    .tag("week")
                NavigationStack { OnboardingView() }
                    .tabItem { Label("Permissions", systemImage: "checkmark.shield") }
                    .tag("permissions")
                NavigationStack { ScannerView() }
                    .tabItem { Label("Scanner", systemImage: "dot.radiowaves.left.and.right") }
                    .tag("scanner")
                NavigationStack { DiagnosticsView() }
                    .tabItem { Label("Diagnostics", systemImage: "stethoscope") }
                    .tag("diagnostics")
            }
            // A tapped notification opens on Today (now, or once this view appears).
            .task(id: model.route) {
                guard let route = model.route else { return }
                tab = "today"
                if route == .today { model.route = nil }
            }
        }
    }
}
#endif
