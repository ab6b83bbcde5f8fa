@testable import AttendanceEngine
import AttendanceModels
import Foundation
import Testing

@Suite struct SignalTests {
    let t0 = Date(timeIntervalSince1970: 0)
    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    @Test func slidingMedianKeepsTheLastNHeardSamples() {
        var filter = SlidingMedianFilter(windowSize: 3)
        #expect(filter.estimate == nil)
        #expect(filter.add(rssi: -60, at: at(0)) == -60)
        #expect(filter.add(rssi: -70, at: at(1)) == -65)   // (−60 + −70) / 2
        #expect(filter.add(rssi: -65, at: at(2)) == -65)   // median of −60, −70, −65
        #expect(filter.add(rssi: 0, at: at(3)) == -65)     // not heard: ignored
        #expect(filter.add(rssi: -90, at: at(4)) == -70)   // window −70, −65, −90
        filter.reset()
        #expect(filter.estimate == nil)
    }

    @Test func trimmedMeanDropsTenPercentAtEachEndWithinTwentySeconds() {
        var filter = TrimmedMeanFilter(windowSeconds: 20, trimFraction: 0.1)
        // Ten samples: −50 (spike), −60 … −67, −90 (dip). Trim 1 at each end → mean of −60…−67 = −63.5.
        let values = [-50, -60, -61, -62, -63, -64, -65, -66, -67, -90]
        for (second, rssi) in values.enumerated() { filter.add(rssi: rssi, at: at(Double(second))) }
        #expect(filter.estimate == -63.5)
        #expect(filter.add(rssi: 0, at: at(10)) == -63.5)
        // At t = 25 everything at or before t = 5 leaves the window: −65, −66, −67, −90 (t = 6…9)
        // and −70 remain; five samples trim none (floor(0.5) = 0): mean = −358 / 5 = −71.6.
        let estimate = filter.add(rssi: -70, at: at(25))
        #expect(abs(estimate! - -71.6) < 1e-9)
    }

    @Test func armaMovesTenPercentTowardsEachSample() {
        var filter = ARMAFilter(coefficient: 0.1)
        #expect(filter.add(rssi: -60, at: at(0)) == -60)
        #expect(abs(filter.add(rssi: -70, at: at(1))! - -61) < 1e-9)     // −60 − 0.1·(−60 + 70)
        #expect(abs(filter.add(rssi: -70, at: at(2))! - -61.9) < 1e-9)   // −61 − 0.1·(−61 + 70)
        #expect(abs(filter.add(rssi: 0, at: at(3))! - -61.9) < 1e-9)
    }

    @Test func kalmanGainAndVarianceByHand() {
        var filter = KalmanFilter(processNoise: 0.01, measurementNoise: 3)
        #expect(filter.add(rssi: -60, at: at(0)) == -60)
        #expect(filter.errorVariance == 3)
        // P⁻ = 3.01, K = 3.01 / 6.01, x = −60 + K·(−66 + 60), P = (1 − K)·3.01.
        let gain = 3.01 / 6.01
        let estimate = filter.add(rssi: -66, at: at(1))!
        #expect(abs(estimate - (-60 - 6 * gain)) < 1e-12)
        #expect(abs(estimate - -63.004992) < 1e-6)
        #expect(abs(filter.errorVariance - (1 - gain) * 3.01) < 1e-12)
        #expect(filter.add(rssi: 0, at: at(2)) == estimate)
    }

    @Test func statisticsUseTheSampleStandardDeviation() {
        #expect(SampleStatistics.median([-60, -62, -64, -66]) == -63)
        #expect(SampleStatistics.median([Int]()) == nil)
        // Mean −63; squares 9 + 1 + 1 + 9 = 20; 20 / 3 → √6.667 = 2.582.
        #expect(abs(SampleStatistics.standardDeviation([-60, -62, -64, -66])! - (20.0 / 3).squareRoot()) < 1e-12)
        #expect(SampleStatistics.standardDeviation([-60]) == nil)
    }

    @Test func logDistanceByHand() {
        let estimator = DistanceEstimator()
        let beacon = BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 1, minor: 1)
        #expect(estimator.distanceMeters(rssi: -59, beacon: beacon) == 1)
        #expect(abs(estimator.distanceMeters(rssi: -79, beacon: beacon)! - 10) < 1e-9)   // 10^(20/20)
        #expect(abs(estimator.distanceMeters(rssi: -65, beacon: beacon)! - pow(10, 0.3)) < 1e-9)
        #expect(estimator.distanceMeters(rssi: 0, beacon: beacon) == nil)
        let office = DistanceEstimator(model: .logDistance(pathLossExponent: 3))
        #expect(abs(office.distanceMeters(rssi: -89, beacon: beacon)! - 10) < 1e-9)      // 10^(30/30)
    }

    @Test func calibrationsOverridePerBeaconThenPerSite() {
        let estimator = DistanceEstimator(calibrations: [
            BeaconCalibration(major: 1, minor: 7, txPowerDBm: -65),
            BeaconCalibration(major: 1, txPowerDBm: -62),
        ])
        let calibrated = BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 1, minor: 7)
        let rotated = BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 1, minor: 999)
        let other = BeaconIdentity(uuid: SiteBeacon.defaultUUID, major: 2, minor: 7)
        #expect(estimator.txPower(for: calibrated) == -65)
        #expect(estimator.txPower(for: rotated) == -62)
        #expect(estimator.txPower(for: other) == -59)
        #expect(abs(estimator.distanceMeters(rssi: -85, beacon: calibrated)! - 10) < 1e-9)  // 10^((−65 + 85)/20)
    }

    @Test func curveFittedFormByHand() {
        let model = DistanceEstimator.Model.curveFitted(a: 0.89976, b: 7.7095, c: 0.111)
        // At rssi = txPower the ratio is 1: A + C.
        #expect(abs(DistanceEstimator.distanceMeters(rssi: -59, txPowerDBm: -59, model: model) - 1.01076) < 1e-9)
        // rssi −70: 0.89976 · (70/59)^7.7095 + 0.111.
        let expected = 0.89976 * pow(70.0 / 59.0, 7.7095) + 0.111
        #expect(abs(DistanceEstimator.distanceMeters(rssi: -70, txPowerDBm: -59, model: model) - expected) < 1e-9)
        #expect(abs(expected - 3.473) < 0.001)   // ln(70/59)·7.7095 = 1.3180; e^1.3180 = 3.7363
    }

    @Test func proximityBands() {
        #expect(Proximity(distanceMeters: 0.3) == .immediate)
        #expect(Proximity(distanceMeters: 2) == .near)
        #expect(Proximity(distanceMeters: 8) == .far)
        #expect(Proximity(distanceMeters: nil) == .unknown)
    }
}
