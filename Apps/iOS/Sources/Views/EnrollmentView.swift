#if canImport(SwiftUI) && os(iOS)
import AttendanceAppCore
import SwiftUI

/// The server address and the one-time code from HR.
struct EnrollmentView: View {
    @EnvironmentObject private var model: AppModel

    var body: some View {
        Form {
            Section("Server") {
                TextField("attendance.example.com", text: $model.enrollment.serverURL)
                    .textContentType(.URL).keyboardType(.URL).autocorrectionDisabled().textInputAutocapitalization(
                        .never)
            }
            Section("Enrollment code") {
                TextField("K7P2Q-9XMWD", text: $model.enrollment.code)
                    .autocorrectionDisabled().textInputAutocapitalization(.characters)
            }
            Section {
                TextField("Anna's work iPhone", text: $model.enrollment.phoneName)
                    .autocorrectionDisabled()
            } header: {
                Text("Name of this phone")
            } footer: {
                Text("HR sees this name in the list of devices, so they can tell your phones apart.")
            }
            Section {
                Button(
                    model.enrollment.phase == .submitting
                        ? LocalizedStringKey("Enrolling…") : LocalizedStringKey("Enroll this iPhone")
                ) {
                    Task { await model.enroll() }
                }
                .disabled(!model.enrollment.canSubmit)
            }
            if case .failed(let message) = model.enrollment.phase {
                Section { Text(message).foregroundStyle(.red) }
            }
        }
        .onChange(of: model.enrollment.code) { _ in model.enrollment.edited() }
        .onChange(of: model.enrollment.phoneName) { _ in model.enrollment.edited() }
        .navigationTitle("Welcome")
    }
}
#endif
