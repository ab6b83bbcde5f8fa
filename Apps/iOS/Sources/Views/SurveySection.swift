#if canImport(SwiftUI) && os(iOS)
import AttendanceAppCore
import AttendanceModels
import SwiftUI

/// The Scanner's survey mode: pick the site, then at each spot name it, hold the phone still and
/// save; each spot where another site's beacon is within 6 dB of the site's own is listed with
/// what to change; the survey is sent to the server for the console's site survey page.
struct SurveySection: View {
    @EnvironmentObject private var model: AppModel

    var body: some View {
        if let survey = model.survey {
            Section("Spot") {
                TextField("Desk 4.12", text: $model.surveySpotLabel).autocorrectionDisabled()
                Picker("Kind", selection: $model.surveySpotKind) {
                    Text("Desk").tag(SurveySpot.Kind.desk)
                    Text("Door").tag(SurveySpot.Kind.door)
                    Text("Corridor").tag(SurveySpot.Kind.corridor)
                    Text("Other").tag(SurveySpot.Kind.other)
                }
                if case .recording(let recording) = survey.state {
                    Text("Hold still: \(recording.seconds) s recorded")
                    if let finding = survey.liveFinding { Text(Self.problem(finding.problem)).foregroundStyle(.red) }
                    Button("Save the spot") { model.saveSpot() }
                    Button("Discard") { model.survey?.discard() }
                } else {
                    Button("Record this spot") { model.startSpot() }
                }
                if let message = model.surveyMessage { Text(verbatim: message) }
            }
            Section("Spots to change") {
                ForEach(survey.findings, id: \.spot.label) { finding in
                    VStack(alignment: .leading) {
                        Text(verbatim: finding.spot.label).bold()
                        Text(Self.problem(finding.problem)).font(.caption)
                    }
                }
                Button("Send the survey (\(survey.survey.spots.count) spots)") { Task { await model.sendSurvey() } }
                    .disabled(survey.survey.spots.isEmpty)
            }
        } else {
            Section("Survey a site") {
                ForEach(model.status?.siteBeacons ?? [], id: \.self) { site in
                    Button(model.status?.siteNames[site] ?? site.description) { model.beginSurvey(of: site) }
                }
                if let message = model.surveyMessage { Text(verbatim: message) }
            }
        }
    }

    private static func problem(_ problem: SurveyFinding.Problem) -> LocalizedStringKey {
        switch problem {
        case .ownNotHeard: "None of this site's beacons is heard here: add one near this spot."
        case .neighbourLouder(let dB): "Another site's beacon is \(Int(dB.rounded())) dB louder here."
        case .neighbourClose(let dB):
            "Another site's beacon is only \(Int(dB.rounded())) dB quieter here (6 dB needed)."
        }
    }
}
#endif
