#if canImport(SwiftUI) && os(iOS)
import AttendanceAppCore
import AttendanceEngine
import SwiftUI

/// Live beacons while open (continuous ranging), loudest first, under the survey mode's section.
struct ScannerView: View {
    @EnvironmentObject private var model: AppModel

    var body: some View {
        List {
            SurveySection()
            Section("Beacons heard") {
                ForEach(model.scanner.rows) { row in
                    Self.row(row)
                }
            }
        }
        .overlay { if model.scanner.rows.isEmpty { Text("Listening for beacons…").foregroundStyle(.secondary) } }
        .navigationTitle("Scanner")
        .onAppear { model.scanner(open: true) }
        .onDisappear { model.scanner(open: false) }
    }

    private static func row(_ row: ScannerModel.Row) -> some View {
        VStack(alignment: .leading, spacing: 2) {
            HStack {
                // A site's name is the employer's, shown as it is.
                (row.site.map { Text(verbatim: $0) } ?? Text("Unknown site")).bold()
                Spacer()
                Text(Self.proximityTitle(row.proximity))
            }
            Text(verbatim: row.uuid).font(.caption.monospaced())
            // Int, not UInt16: the catalogue's key is "major %lld · minor %lld".
            Text("major \(Int(row.major)) · minor \(Int(row.minor))").font(.caption)
            Text(verbatim: "\(row.rssiText) · \(row.distanceText)").font(.caption.monospacedDigit())
        }
        .opacity(row.stale ? 0.4 : 1)
    }

    /// The engine's proximity band as the Scanner shows it, in the phone's language.
    private static func proximityTitle(_ proximity: Proximity) -> LocalizedStringKey {
        switch proximity {
        case .immediate: LocalizedStringKey("immediate")
        case .near: LocalizedStringKey("near")
        case .far: LocalizedStringKey("far")
        case .unknown: LocalizedStringKey("unknown")
        }
    }
}
#endif
