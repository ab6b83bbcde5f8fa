#if canImport(SwiftUI) && os(iOS)
import AttendanceAppCore
import AttendanceModels
import SwiftUI

/// Where the employee is checked in, time worked, sync state, and the manual override.
struct TodayView: View {
    @EnvironmentObject private var model: AppModel
    @State private var manual: ManualOverride?

    var body: some View {
        List {
            if let status = model.status {
                let today = TodayModel(status: status, format: model.format)
                Section {
                    Text(today.headline).font(.title2.bold())
                    ForEach(today.presences) { presence in
                        LabeledContent(
                            presence.site, value: presence.manual ? Self.manual(presence.state) : presence.state)
                    }
                    Text(today.workedToday)
                }
                Section("Sync") {
                    Text(today.lastSync)
                    Text(today.pending)
                    if let refused = today.refused { Text(refused).foregroundStyle(.red) }
                }
                if !today.warnings.isEmpty {
                    Section("Automatic attendance is off") {
                        ForEach(today.warnings, id: \.self) { Text($0).foregroundStyle(.orange) }
                    }
                }
                Section("By hand") {
                    Button("Check in by hand") { Task { manual = await model.manualOverride(.checkIn) } }.disabled(
                        !today.canCheckIn)
                    Button("Check out by hand") { Task { manual = await model.manualOverride(.checkOut) } }.disabled(
                        !today.canCheckOut)
                }
            }
            if let message = model.message { Section { Text(message).foregroundStyle(.red) } }
        }
        .refreshable { await model.reload() }
        .navigationTitle("Today")
        // The manual check-in prompt was tapped (now, or before this screen appeared): its sheet
        // opens here.
        .task(id: model.route) {
            guard model.route == .manualCheckIn else { return }
            manual = await model.manualOverride(.checkIn)
            model.route = nil  // after the await: changing the id cancels this task
        }
        .sheet(item: Binding(get: { manual.map(ManualSheetItem.init) }, set: { manual = $0?.manual })) { item in
            ManualOverrideSheet(manual: item.manual) { manual = nil }
        }
    }

    /// A presence recorded by hand: its state, marked. NSLocalizedString, not String(localized:):
    /// Linux's Foundation, which `scripts/check-apple typecheck` uses, lacks the latter.
    private static func manual(_ state: String) -> String {
        String(format: NSLocalizedString("%@ (manual)", comment: "Today: a presence recorded by hand"), state)
    }
}

private struct ManualSheetItem: Identifiable {
    var manual: ManualOverride
    var id: String { manual.kind.rawValue }
}

struct ManualOverrideSheet: View {
    @EnvironmentObject private var model: AppModel
    @State var manual: ManualOverride
    let close: @MainActor () -> Void

    var body: some View {
        NavigationStack {
            Form {
                Picker("Site", selection: $manual.site) {
                    Text("Choose…").tag(nil as AttendanceModels.SiteBeacon?)
                    ForEach(manual.choices) { Text($0.name).tag(Optional($0.id)) }
                }
                if let offer = manual.offer(format: model.format) {
                    Toggle(offer, isOn: $manual.useOfferedTime)
                }
                Section("Reason (your administrator sees it)") {
                    TextField("Why", text: $manual.reason, axis: .vertical)
                    ForEach(ManualOverride.reasonPresets(model.format), id: \.self) { preset in
                        Button(preset) { manual.reason = preset }
                    }
                }
                switch manual.phase {
                case .accepted(let text): Text(text).foregroundStyle(.green)
                case .rejected(let text): Text(text).foregroundStyle(.red)
                case .editing, .sent: EmptyView()
                }
            }
            .navigationTitle(model.format.string(manual.title))
            .toolbar {
                ToolbarItem(placement: .cancellationAction) { Button("Close", action: close) }
                ToolbarItem(placement: .confirmationAction) {
                    Button("Send") { Task { manual = await model.send(manual) } }
                }
            }
        }
    }
}
#endif
