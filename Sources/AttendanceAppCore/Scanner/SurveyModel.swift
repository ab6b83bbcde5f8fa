import AttendanceEngine
import AttendanceModels
import Foundation

/// The Scanner screen's survey mode: the installer walks one site, stops at a spot (a desk, a
/// door, a corridor), names it and holds the phone still while every ranging second is recorded,
/// then saves the spot. Each saved spot keeps every beacon heard there with its median RSSI; the
/// findings (`SurveyFindings`, the same rule as the console's) show at once where another site's
/// beacon is within 6 dB of the site's own, or louder, and what to change. The survey is what the
/// app uploads for the site.
///
/// | state | input | next state | result |
/// |---|---|---|---|
/// | ready | start(label, kind) | recording | refused, naming the field, if the label is not 1–60 characters |
/// | recording | ranged(samples) | recording | one second more; each heard beacon's RSSI kept |
/// | recording | save | ready | the spot, or refused if held still for less than `minimumSeconds` |
/// | recording | discard | ready | nothing kept |
/// | recording | start | recording | refused: save or discard the spot first |
/// | ready | ranged, save, discard | ready | nothing (no spot is being recorded) |
public struct SurveyModel: Hashable, Sendable {
    public static let spotField = LocalizedText("Spot")
    public static let recordingField = LocalizedText("Recording")
    /// Seconds held still at a spot before it can be saved: enough for a median over ranging's
    /// dropouts (one second in eleven is silent on real iPhones; docs/SIMULATOR.md).
    public static let minimumSeconds = 10
    static let labelMaxLength = 60

    public enum State: Hashable, Sendable {
        case ready
        case recording(Recording)
    }

    /// A spot being recorded.
    public struct Recording: Hashable, Sendable {
        public var label: String
        public var kind: SurveySpot.Kind
        public var seconds = 0
        var heard: [BeaconIdentity: [Int]] = [:]

        /// Each heard beacon's reading over the seconds so far, loudest median first.
        var readings: [SurveyReading] {
            heard.compactMap { beacon, rssi in SurveyReading.of(beacon, rssi: rssi, seconds: seconds) }
                .sorted { ($0.medianRSSI, $1.beacon.description) > ($1.medianRSSI, $0.beacon.description) }
        }
    }

    public private(set) var state: State = .ready
    public private(set) var survey: SiteSurvey
    /// The employer's other sites: only their beacons count as neighbours.
    public let otherSites: Set<SiteBeacon>

    /// A survey of `site`; `status` gives the employer's other sites (the phone's configuration).
    public init(site: SiteBeacon, status: DeviceStatus?) {
        survey = SiteSurvey(site: site)
        otherSites = Set(status?.siteBeacons ?? []).subtracting([site])
    }

    /// Starts recording a spot named `label`.
    public mutating func start(label: String, kind: SurveySpot.Kind) -> FieldErrors? {
        if case .recording(let recording) = state {
            return FieldErrors([
                FieldError(
                    field: Self.spotField, value: label,
                    expected: LocalizedText(
                        "the recording of %@ saved or discarded first", .verbatim(recording.label)))
            ])
        }
        let trimmed = label.trimmingCharacters(in: .whitespacesAndNewlines)
        let control = trimmed.unicodeScalars.contains { $0.properties.generalCategory == .control }
        guard !trimmed.isEmpty, trimmed.count <= Self.labelMaxLength, !control else {
            return FieldErrors([
                FieldError(
                    field: Self.spotField, value: label,
                    expected: LocalizedText(
                        "a name of 1 to %lld characters for this spot, like Desk 4.12", .count(Self.labelMaxLength)))
            ])
        }
        state = .recording(Recording(label: trimmed, kind: kind))
        return nil
    }

    /// One ranging callback (1 Hz) while a spot is recorded; beacons with rssi 0 were not heard.
    public mutating func ranged(_ samples: [BeaconSample]) {
        guard case .recording(var recording) = state else { return }
        recording.seconds += 1
        for sample in samples where sample.isHeard {
            recording.heard[sample.beacon, default: []].append(sample.rssi)
        }
        state = .recording(recording)
    }

    /// Keeps the spot being recorded, with its findings, and returns it.
    public mutating func save(at now: Date) -> Result<SurveySpot, FieldErrors> {
        guard case .recording(let recording) = state else {
            return .failure(
                FieldErrors([
                    FieldError(
                        field: Self.recordingField, value: "",
                        expected: LocalizedText("a spot being recorded: start one first"))
                ]))
        }
        guard recording.seconds >= Self.minimumSeconds else {
            return .failure(
                FieldErrors([
                    FieldError(
                        field: Self.recordingField, value: "\(recording.seconds) s",
                        expected: LocalizedText(
                            "at least %lld seconds held still at the spot", .count(Self.minimumSeconds)))
                ]))
        }
        let spot = SurveySpot(
            label: recording.label, kind: recording.kind, recordedAt: now, seconds: recording.seconds,
            readings: recording.readings)
        survey.spots.append(spot)
        state = .ready
        return .success(spot)
    }

    /// Drops the spot being recorded.
    public mutating func discard() { state = .ready }

    /// Removes a saved spot (recorded in the wrong place).
    public mutating func remove(at index: Int) {
        guard survey.spots.indices.contains(index) else { return }
        survey.spots.remove(at: index)
    }

    /// The saved spots where detection can take the site for another, with what to change.
    public var findings: [SurveyFinding] { SurveyFindings.of(survey, otherSites: otherSites) }

    /// The spot being recorded, as it would be saved now: its finding, if any (the screen shows it live).
    public var liveFinding: SurveyFinding? {
        guard case .recording(let recording) = state, recording.seconds > 0 else { return nil }
        let spot = SurveySpot(
            label: recording.label, kind: recording.kind, recordedAt: Date(timeIntervalSince1970: 0),
            seconds: recording.seconds, readings: recording.readings)
        return SurveyFindings.finding(at: spot, site: survey.site, otherSites: otherSites)
    }
}
