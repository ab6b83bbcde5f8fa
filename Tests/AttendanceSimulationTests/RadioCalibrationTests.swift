import Foundation
import Testing

@testable import AttendanceSimulation

/// The default radio stays within the bands of real iPhone recordings (docs/SIMULATOR.md, "The
/// radio against real iPhones"); the statistics and the silences are checked on hand-built cases.
@Suite struct RadioCalibrationTests {
    /// `calibration.rows()`, computed on a thread of its own: it is seconds of CPU with nothing to
    /// await, and on one of Swift concurrency's cooperative threads (as many as cores) it would hold
    /// that thread throughout, stalling every other test meanwhile (both did, for a minute, on 2 cores).
    static func rows(of calibration: RadioCalibration) async -> [RadioCalibration.Row] {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: calibration.rows()) }
        }
    }

    @Test func theDefaultRadioMatchesRealIPhones() async {
        for row in await Self.rows(of: RadioCalibration()) {
            #expect(row.passes, "\(row.statistic): simulated \(row.simulated), expected \(row.band) (real \(row.real))")
        }
    }

    @Test func theOldRadioFailsTheCheck() async {
        // The radio before calibration (shadowing correlated over 5 s, no fast noise, no silences)
        // is what the check exists to catch: too correlated, too few missing readings.
        var world = WorldSpec()
        world.sites[0].radio.shadowingCorrelationSeconds = 5
        world.sites[0].radio.fastNoiseSigmaDB = 0
        world.iOS.scanSilencesPerHour = 0
        let failing = await Self.rows(of: RadioCalibration(world: world)).filter { !$0.passes }.map(\.statistic)
        #expect(failing.contains { $0.hasPrefix("SD of RSSI") })
        #expect(failing.contains { $0.hasPrefix("lag-1") })
        #expect(failing.contains { $0.hasPrefix("share of logging ticks") })
        #expect(failing.contains { $0.hasPrefix("longest silence") })
    }

    @Test func statisticsOfAHandBuiltRecording() {
        // Ticks every 3 s for 10 min: −70 dBm, every tenth tick −80, the ticks from 60 to 72 s unheard.
        let readings = stride(from: 0.0, through: 600, by: 3).enumerated().map {
            index, time -> RecordingStatistics.Reading in
            let silent = time > 57 && time < 75
            return .init(time: time, rssi: silent ? nil : (index % 10 == 0 ? -80 : -70))
        }
        let statistics = RecordingStatistics(readings)
        #expect(abs(statistics.missingFraction - 5.0 / 201) < 1e-9)
        #expect(statistics.longestGapSeconds == 18)
        #expect(statistics.gapP95Seconds == 3)
        #expect(abs(statistics.hours - 600.0 / 3_600) < 1e-9)
        // The median of every window is −70: deviations of 0, and −10 at each dip (computed by hand
        // in Python from the same definitions: SD 3.035, lag-1 −0.104).
        #expect(abs(statistics.deviationSDDB - 3.0348) < 1e-3)
        #expect(abs(statistics.lag1Autocorrelation - -0.1045) < 1e-3)
    }

    @Test func silencesAreTheSameWhateverOrderTheyAreAskedIn() {
        var forward = ScanSilences(perHour: 52, minSeconds: 2, meanSeconds: 6, maxSeconds: 34, seed: 7)
        let seconds = (1...7_200).map { Double($0) }
        let inOrder = seconds.map { forward.silentFraction(from: $0 - 1, to: $0) }
        var backward = ScanSilences(perHour: 52, minSeconds: 2, meanSeconds: 6, maxSeconds: 34, seed: 7)
        let reversed = seconds.reversed().map { backward.silentFraction(from: $0 - 1, to: $0) }
        #expect(inOrder == reversed.reversed())
        // About 52 an hour of 6 s on average: ~8.7 % of the time.
        let share = inOrder.reduce(0, +) / Double(inOrder.count)
        #expect((0.05...0.13).contains(share))
    }

    @Test func silencesNeverMergeAndNeverExceedTheirLongest() {
        var silences = ScanSilences(perHour: 52, minSeconds: 2, meanSeconds: 6, maxSeconds: 34, seed: 3)
        var silentRun = 0
        var heardRun = 0
        var sawSilence = false
        var longest = 0
        var shortestHearing = Int.max
        for second in 1...200_000 {
            if silences.silentFraction(from: Double(second - 1), to: Double(second)) > 0 {
                if heardRun > 0 && sawSilence { shortestHearing = min(shortestHearing, heardRun) }
                heardRun = 0
                silentRun += 1
                sawSilence = true
            } else {
                longest = max(longest, silentRun)
                silentRun = 0
                heardRun += 1
            }
        }
        // A silence spans at most 34 s, touching at most 35 whole seconds.
        #expect(longest <= 35 && longest >= 20)
        // Seconds that a silence only touches count as silent: 5 s of hearing leave 3 whole ones.
        #expect(shortestHearing >= Int(ScanSilences.minHearingSeconds) - 2)
    }

    @Test func noSilencesWhenTheWorldHasNone() {
        var silences = ScanSilences(perHour: 0, minSeconds: 0, meanSeconds: 0, maxSeconds: 0, seed: 1)
        #expect(silences.silentFraction(from: 0, to: 86_400) == 0)
    }
}
