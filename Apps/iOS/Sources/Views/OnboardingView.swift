#if canImport(SwiftUI) && os(iOS)
import AttendanceAppCore
import SwiftUI

/// Explains Always and Background App Refresh, shows what is missing, and offers the one
/// action that helps (a system prompt, or the app's page in Settings).
struct OnboardingView: View {
    @EnvironmentObject private var model: AppModel

    var body: some View {
        let guide = PermissionGuide(model.permissions)
        List {
            Section { Text(model.format.string(guide.headline)).font(.headline) }
            ForEach(guide.steps) { step in
                Section(model.format.string(step.title)) {
                    Label(
                        Self.statusTitle(step.status),
                        systemImage: step.status == .done ? "checkmark.circle.fill" : "exclamationmark.triangle"
                    )
                    .foregroundStyle(step.status == .done ? .green : step.status == .blocking ? .red : .orange)
                    Text(model.format.string(step.explanation)).font(.callout)
                    if let title = step.actionTitle, step.action != .none {
                        Button(model.format.string(title)) { model.perform(step.action) }
                    }
                }
            }
        }
        .navigationTitle("Permissions")
    }

    /// A step's status as its label says it, in the phone's language.
    private static func statusTitle(_ status: PermissionGuide.StepStatus) -> LocalizedStringKey {
        switch status {
        case .done: LocalizedStringKey("Done")
        case .needed: LocalizedStringKey("Needed")
        case .blocking: LocalizedStringKey("Blocking")
        case .optional: LocalizedStringKey("Optional")
        }
    }
}
#endif
