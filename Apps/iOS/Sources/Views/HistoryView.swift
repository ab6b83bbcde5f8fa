#if canImport(SwiftUI) && os(iOS)
import AttendanceAppCore
import SwiftUI

/// Sessions by day, with each day's total.
struct HistoryView: View {
    @EnvironmentObject private var model: AppModel

    var body: some View {
        List {
            if let status = model.status {
                let history = HistoryModel(status: status, format: model.format)
                ForEach(history.days) { day in
                    Section {
                        ForEach(day.rows) { row in
                            VStack(alignment: .leading) {
                                HStack {
                                    Text(row.site).bold()
                                    Spacer()
                                    Text(row.duration)
                                }
                                Text(row.times).font(.callout)
                                if !row.notes.isEmpty {
                                    Text(row.notes.joined(separator: " · ")).font(.caption).foregroundStyle(.secondary)
                                }
                            }
                        }
                    } header: {
                        HStack {
                            Text(day.title)
                            Spacer()
                            Text(day.total)
                        }
                    }
                }
                Section { Text(history.footnote).font(.footnote).foregroundStyle(.secondary) }
            }
            if let record = model.serverRecord {
                Section {
                    ForEach(record.rows) { row in
                        Button {
                            Task { form = await model.correctionForm(for: row.correctable) }
                        } label: {
                            VStack(alignment: .leading) {
                                HStack {
                                    Text(row.site).bold()
                                    Spacer()
                                    Text(row.duration)
                                }
                                Text(row.times).font(.callout)
                                if !row.notes.isEmpty {
                                    Text(row.notes.joined(separator: " · ")).font(.caption).foregroundStyle(.secondary)
                                }
                            }
                        }
                        .disabled(row.correctable == nil)
                    }
                    Button("Report a missed session") { Task { form = await model.correctionForm(for: nil) } }
                } header: {
                    Text("Your employer's record")
                } footer: {
                    Text(record.footnote)
                }
            }
        }
        .navigationTitle("History")
        .task { await model.loadServerRecord() }
        .refreshable { await model.loadServerRecord() }
        .sheet(item: $form) { current in CorrectionRequestSheet(form: current) { form = nil } }
    }

    @State private var form: CorrectionRequestForm?
}

extension CorrectionRequestForm: @retroactive Identifiable {
    public var id: String {
        switch target {
        case .session(let session): session.id.rawValue
        case .missing: "missing"
        }
    }
}
#endif
