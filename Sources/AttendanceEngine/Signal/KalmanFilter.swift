import Foundation

/// A one-dimensional Kalman filter with a constant-level model.
///
/// `processNoise` is how much the true level may drift between samples (dB²) and
/// `measurementNoise` the variance of one reading (dB²). The first sample seeds the estimate
/// with an error variance equal to the measurement noise.
public struct KalmanFilter: RSSIFilter, Hashable, Codable {
    public let processNoise: Double
    public let measurementNoise: Double
    public private(set) var estimate: Double?
    public private(set) var errorVariance: Double

    public init(processNoise: Double = 0.01, measurementNoise: Double = 3) {
        precondition(processNoise >= 0 && measurementNoise > 0, "noise must be non-negative (process) and positive (measurement)")
        self.processNoise = processNoise
        self.measurementNoise = measurementNoise
        self.errorVariance = measurementNoise
    }

    @discardableResult
    public mutating func add(rssi: Int, at time: Date) -> Double? {
        guard rssi != 0 else { return estimate }
        let measurement = Double(rssi)
        guard let previous = estimate else {
            estimate = measurement
            errorVariance = measurementNoise
            return estimate
        }
        let predictedVariance = errorVariance + processNoise
        let gain = predictedVariance / (predictedVariance + measurementNoise)
        estimate = previous + gain * (measurement - previous)
        errorVariance = (1 - gain) * predictedVariance
        return estimate
    }

    public mutating func reset() {
        estimate = nil
        errorVariance = measurementNoise
    }
}
