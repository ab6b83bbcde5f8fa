#if canImport(SwiftUI) && os(iOS)
import AttendanceAppCore
import SwiftUI

/// Live beacons while open (continuous ranging), loudest first.
struct ScannerView: View {
    @EnvironmentObject private var model: AppModel

    var body: some View {
        List(model.scanner.rows) { row in
            VStack(alignment: .leading, spacing: 2) {
                HStack {
                    Text(row.site ?? "Unknown site").bold()
                    Spacer()
                    Text(row.proximity.rawValue)
                }
                Text("\(row.uuid)").font(.caption.monospaced())
                Text("major \(row.major) · minor \(row.minor)").font(.caption)
                Text("\(row.rssiText) · \(row.distanceText)").font(.caption.monospacedDigit())
            }
            .opacity(row.stale ? 0.4 : 1)
        }
        .overlay { if model.scanner.rows.isEmpty { Text("Listening for beacons…").foregroundStyle(.secondary) } }
        .navigationTitle("Scanner")
        .onAppear { model.scanner(open: true) }
        .onDisappear { model.scanner(open: false) }
    }
}
#endif
