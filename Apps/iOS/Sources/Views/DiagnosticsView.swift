#if canImport(SwiftUI) && os(iOS)
    import AttendanceAppCore
    import SwiftUI

    /// Region states, the outbox and its dead letters, recent telemetry, and the export.
    struct DiagnosticsView: View {
        @EnvironmentObject private var model: AppModel
        @State private var files: [URL] = []

        var body: some View {
            List {
                if let status = model.status {
                    let diagnostics = DiagnosticsModel(status: status, format: model.format)
                    Section("Regions · \(diagnostics.ranging)") {
                        ForEach(diagnostics.regions) { region in
                            VStack(alignment: .leading) {
                                Text(region.name).bold()
                                Text("iOS: \(region.iOSState)").font(.caption)
                                Text("Engine: \(region.engineState)").font(.caption)
                            }
                        }
                    }
                    Section("Outbox") {
                        Text(diagnostics.outbox)
                        ForEach(diagnostics.deadLetters) { dead in
                            VStack(alignment: .leading) {
                                Text(dead.summary)
                                Text(dead.reason).font(.caption).foregroundStyle(.red)
                            }
                        }
                    }
                    if !diagnostics.stuckOnServer.isEmpty {
                        Section("Stuck on the server") {
                            ForEach(diagnostics.stuckOnServer) { stuck in
                                VStack(alignment: .leading) {
                                    Text(stuck.summary)
                                    Text(stuck.reason).font(.caption).foregroundStyle(.orange)
                                }
                            }
                        }
                    }
                    Section("Record") {
                        if diagnostics.ledgerProblem {
                            Text(diagnostics.ledger).foregroundStyle(.red)
                        } else {
                            Text(diagnostics.ledger)
                        }
                    }
                    Section("Recent telemetry") {
                        ForEach(diagnostics.telemetry, id: \.self) { Text($0).font(.caption.monospaced()) }
                    }
                }
                Section {
                    if files.isEmpty {
                        Button("Prepare the field-test file") { Task { files = await model.diagnosticsFiles() } }
                    } else {
                        ShareLink("Share the field-test file", items: files)
                        Button("Prepare it again") { Task { files = await model.diagnosticsFiles() } }
                    }
                }
            }
            .navigationTitle("Diagnostics")
        }
    }
#endif
