#if canImport(SwiftUI) && os(iOS)
import AttendanceAppCore
import SwiftUI

/// The employee's week as the employer counts it: a line per day, the total against what was
/// expected, and which days may still change. Everything shown comes from `WeekTimesheetModel`.
struct WeekView: View {
    @EnvironmentObject private var model: AppModel

    var body: some View {
        List {
            if let week = model.week {
                Section {
                    ForEach(week.lines) { line in
                        VStack(alignment: .leading) {
                            HStack {
                                Text(line.title).bold()
                                Spacer()
                                Text(line.worked)
                            }
                            if !line.notes.isEmpty {
                                Text(line.notes.joined(separator: " · ")).font(.caption).foregroundStyle(.secondary)
                            }
                        }
                    }
                } header: {
                    HStack {
                        Button {
                            Task { await model.loadWeek(WeekTimesheetModel.weekStart(week.from, movedBy: -1)) }
                        } label: {
                            Image(systemName: "chevron.left")
                        }
                        Spacer()
                        Text(week.title)
                        Spacer()
                        Button {
                            Task { await model.loadWeek(WeekTimesheetModel.weekStart(week.from, movedBy: 1)) }
                        } label: {
                            Image(systemName: "chevron.right")
                        }
                    }
                }
                Section {
                    Text(week.total).bold()
                    if let overtime = week.overtime { Text(overtime) }
                    Text(week.footnote).font(.footnote).foregroundStyle(.secondary)
                }
            } else {
                Text("Loading your week…").foregroundStyle(.secondary)
            }
        }
        .navigationTitle("Week")
        .task { await model.loadWeek() }
        .refreshable { await model.loadWeek(model.week?.from) }
    }
}
#endif
