import AttendanceModels
import AttendanceRules
import AttendanceServer
import Foundation
import OpenAPIRuntime

/// A site survey from the app's scanner, answered with its findings.
extension AttendanceAPI {
    func submitSurvey(_ input: Operations.SubmitSurvey.Input) async throws -> Operations.SubmitSurvey.Output {
        guard case .json(let body) = input.body else { throw Self.unsupportedBody }
        let (device, user) = try Caller.device()
        let spots = try body.spots.enumerated().map { index, spot in try Self.surveySpot(spot, at: index) }
        let report = try await admin.storeSurvey(siteId: SiteID(body.siteId), spots: spots, device: device, user: user)
        return .created(
            .init(
                body: .json(
                    .init(
                        id: report.stored.id, siteId: report.stored.siteId.rawValue,
                        spots: report.stored.survey.spots.count,
                        findings: report.findings.map(Self.surveyFinding)))))
    }

    static func surveySpot(_ spot: Components.Schemas.SurveySpot, at index: Int) throws -> SurveySpot {
        let readings = try spot.readings.enumerated().map { position, reading in
            guard let uuid = UUID(uuidString: reading.uuid) else {
                throw DomainError.field(
                    "spots[\(index)].readings[\(position)].uuid", InputRules.shown(reading.uuid),
                    expected: "a UUID like FDA50693-0000-0000-0000-290995101092")
            }
            let place = "spots[\(index)].readings[\(position)]"
            guard let major = UInt16(exactly: reading.major) else {
                throw DomainError.field("\(place).major", "\(reading.major)", expected: "a major from 0 to 65535")
            }
            guard let minor = UInt16(exactly: reading.minor) else {
                throw DomainError.field("\(place).minor", "\(reading.minor)", expected: "a minor from 0 to 65535")
            }
            return SurveyReading(
                beacon: BeaconIdentity(uuid: uuid, major: major, minor: minor),
                medianRSSI: reading.medianRssi, heardShare: reading.heardShare)
        }
        let kind = SurveySpot.Kind(rawValue: spot.kind.rawValue) ?? .other
        return SurveySpot(
            label: spot.label, kind: kind, recordedAt: spot.recordedAt, seconds: spot.seconds, readings: readings)
    }

    static func surveyFinding(_ finding: SurveyFinding) -> Components.Schemas.SurveyFinding {
        let problem: Components.Schemas.SurveyFinding.ProblemPayload
        var gap: Double?
        switch finding.problem {
        case .ownNotHeard: problem = .ownNotHeard
        case .neighbourLouder(let dB):
            problem = .neighbourLouder
            gap = -dB
        case .neighbourClose(let dB):
            problem = .neighbourClose
            gap = dB
        }
        return .init(
            spot: finding.spot.label, problem: problem, gapDb: gap, neighbour: finding.neighbour?.beacon.description,
            advice: finding.advice.map(\.english).joined(separator: "; or "))
    }
}

extension SurveyFinding.Advice {
    /// The advice in English words (the API's; the console says it in the viewer's language).
    var english: String {
        switch self {
        case .addBeacon(let dB):
            "add a beacon of this site near the spot (the site's own needs to be \(Int(dB.rounded(.up))) dB louder)"
        case .moveOrLower(let beacon, let dB):
            "move beacon \(beacon) away from the spot or lower its transmit power by \(Int(dB.rounded(.up))) dB"
        }
    }
}
