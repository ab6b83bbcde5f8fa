import AttendanceModels
import Testing

@testable import AttendanceSimulation

/// iOS's timings as the world describes them, and the region monitor built on them.
@Suite struct IOSTimingTests {
    static let timing = IOSTiming(spec: IOSSpec())

    @Test func entryLatencyIsSecondsWithALongTail() {
        var random = SplitMix64(seed: 9)
        let draws = (0..<10_000).map { _ in Self.timing.entryLatency(&random) }.sorted()
        let median = draws[draws.count / 2]
        #expect(median > 3 && median < 6)
        #expect(draws.filter { $0 > 30 }.count > 500)  // ≈ 10 % tail, mostly far beyond 30 s
        #expect(draws.last! <= 180)
    }

    @Test func exitComesAboutThirtySecondsAfterTheLastPacketSometimesMinutes() {
        var random = SplitMix64(seed: 10)
        let draws = (0..<10_000).map { _ in Self.timing.exitDelay(&random) }
        #expect(Double(draws.filter { (20...40).contains($0) }.count) / 10_000 > 0.9)
        #expect(draws.contains { $0 > 60 })
        #expect(draws.allSatisfy { $0 >= 1 && $0 <= 300 })
    }

    @Test func screenWakesArriveAtTheDailyRate() {
        var random = SplitMix64(seed: 11)
        let wakes = Self.timing.screenWakes(from: 0, to: 100 * 86_400, &random)
        let perDay = Double(wakes.count) / 100
        #expect(abs(perDay - 40) < 3)
        #expect(wakes == wakes.sorted())
    }

    @Test func theMonitorEntersAfterTheLatencyAndExitsAfterTheDelay() {
        var spec = IOSSpec()
        spec.entryLatencyTailProbability = 0
        spec.exitDelayTailProbability = 0
        var monitor = RegionMonitorModel(timing: IOSTiming(spec: spec), seed: 1)
        var callbacks: [RegionMonitorModel.Callback] = []
        // Heard from 100 s to 1,000 s, with a 15 s gap at 500 s (shorter than any exit delay, ≥ 20 s).
        for second in 0..<1_200 {
            let heard = (100..<1_000).contains(second) && !(500..<515).contains(second)
            callbacks += monitor.observe(at: Double(second), heard: heard)
        }
        #expect(callbacks.count == 2)
        guard case .entered(let entry)? = callbacks.first, case .exited(let exit)? = callbacks.last else {
            Issue.record("expected an entry then an exit, got \(callbacks)")
            return
        }
        #expect(entry >= 100 && entry < 130)
        #expect(exit - 999 >= 20 && exit - 999 <= 41)
        #expect(!monitor.inside)
    }
}
