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
                                HStack { Text(row.site).bold(); Spacer(); Text(row.duration) }
                                Text(row.times).font(.callout)
                                if !row.notes.isEmpty { Text(row.notes.joined(separator: " · ")).font(.caption).foregroundStyle(.secondary) }
                            }
                        }
                    } header: { HStack { Text(day.title); Spacer(); Text(day.total) } }
                }
                Section { Text(history.footnote).font(.footnote).foregroundStyle(.secondary) }
            }
        }
        .navigationTitle("History")
    }
}
#endif
