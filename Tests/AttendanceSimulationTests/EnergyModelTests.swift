import Foundation
import Testing

@testable import AttendanceSimulation

/// The energy model on hand-computed cases, and the meter of awake time it is fed.
@Suite struct EnergyModelTests {
    @Test func eachPartIsItsTimeOrCountTimesItsCoefficient() {
        var spec = EnergySpec()
        spec.awakeMilliamps = 20
        spec.rangingMilliamps = 10
        spec.backgroundLocationMilliamps = 3
        spec.wakeupMilliampSeconds = 150
        spec.regionMonitoringMilliampsPerRegion = 0.5
        spec.requestMilliampSeconds = 2_500
        spec.milliampSecondsPerKilobyte = 0.8
        var usage = DeviceUsage()
        usage.awakeSeconds = 1_800
        usage.scanSeconds = 720
        usage.backgroundLocationSeconds = 1_200
        usage.wakeups = 60
        usage.monitoredRegionSeconds = 3 * 86_400
        usage.requests = 36
        usage.bytes = 20_480
        // Over two days: each part is per day.
        let parts = spec.perDay(usage, days: 2)
        #expect(abs(parts.awake - 1_800 * 20 / 3_600 / 2) < 1e-9)  // 5 mAh
        #expect(abs(parts.ranging - 720 * 10 / 3_600 / 2) < 1e-9)  // 1 mAh
        #expect(abs(parts.backgroundLocation - 1_200 * 3 / 3_600 / 2) < 1e-9)  // 0.5 mAh
        #expect(abs(parts.wakeups - 60 * 150 / 3_600 / 2) < 1e-9)  // 1.25 mAh
        #expect(abs(parts.regionMonitoring - 3 * 86_400 * 0.5 / 3_600 / 2) < 1e-9)  // 18 mAh
        #expect(abs(parts.network - (36 * 2_500 + 20 * 0.8) / 3_600 / 2) < 1e-9)
        #expect(
            abs(
                parts.total
                    - (parts.awake + parts.ranging + parts.backgroundLocation + parts.wakeups
                        + parts.regionMonitoring + parts.network)) < 1e-9)
    }

    @Test func theReportGivesTheShareOfTheBattery() {
        let day = EnergyParts(
            awake: 10, ranging: 5, backgroundLocation: 1, wakeups: 2, regionMonitoring: 0, network: 12)
        let energy = PolicyReport.Energy(perPhoneDay: [day, day], batteryMilliampHours: 3_000)
        #expect(energy.milliampHoursPerDay.p50 == 30)
        #expect(abs(energy.batteryPercentPerDay.p95 - 1) < 1e-9)
        #expect(energy.meanParts == day)
    }

    @Test func overlappingGrantsOfAwakeTimeCountOnce() {
        var meter = AwakeMeter()
        meter.awake(from: 0, until: 10)
        meter.awake(from: 5, until: 35)  // a background task from 5 s
        meter.awake(from: 100, until: 110)
        #expect(meter.seconds(until: 1_000) == 45)
        // Kept running (no end known), then the process dies at 160 s.
        meter.awake(from: 120, until: .infinity)
        meter.ended(at: 160)
        #expect(meter.seconds(until: 1_000) == 85)
        // A grant still running at the horizon is cut there.
        meter.awake(from: 990, until: 1_020)
        #expect(meter.seconds(until: 1_000) == 95)
    }
}
