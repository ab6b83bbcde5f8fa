#if canImport(SwiftUI) && os(iOS)
import AttendanceAppCore
import SwiftUI

/// "Request a correction": the proposed times, the site for a missed session, and the reason.
/// Every rule and message is CorrectionRequestForm's (tested on Linux); this only shows it.
struct CorrectionRequestSheet: View {
    @EnvironmentObject private var model: AppModel
    @State var form: CorrectionRequestForm
    let done: @MainActor () -> Void
    @State private var problem: String?
    @State private var sending = false

    var body: some View {
        NavigationStack {
            Form {
                if case .missing = form.target {
                    Picker("Site", selection: $form.siteID) {
                        Text("Choose").tag(String?.none)
                        ForEach(form.sites) { site in Text(site.name).tag(String?.some(site.id)) }
                    }
                }
                DatePicker(
                    "Arrived", selection: Binding(get: { form.checkInAt ?? Date() }, set: { form.checkInAt = $0 }))
                DatePicker(
                    "Left", selection: Binding(get: { form.checkOutAt ?? Date() }, set: { form.checkOutAt = $0 }))
                TextField("Why the record is wrong", text: $form.reason, axis: .vertical)
                if let problem { Text(problem).foregroundStyle(.red).font(.callout) }
            }
            .navigationTitle(model.format.string(form.title))
            .toolbar {
                ToolbarItem(placement: .cancellationAction) { Button("Cancel", action: done) }
                ToolbarItem(placement: .confirmationAction) {
                    Button("Send") {
                        sending = true
                        Task {
                            problem = await model.file(form)
                            sending = false
                            if problem == nil { done() }
                        }
                    }
                    .disabled(sending)
                }
            }
        }
    }
}
#endif
