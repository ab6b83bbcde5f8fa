/// Median and standard deviation of a handful of RSSI values (a ranging window holds ≤ 30).
public enum SampleStatistics {
    /// The median; for an even count, the mean of the two middle values.
    public static func median<C: Collection>(_ values: C) -> Double? where C.Element: BinaryInteger {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? Double(sorted[middle]) : (Double(sorted[middle - 1]) + Double(sorted[middle])) / 2
    }

    public static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The sample standard deviation (n − 1 in the denominator), which does not understate the
    /// spread of the 4–8 samples a window typically holds. `nil` for fewer than two values.
    public static func standardDeviation<C: Collection>(_ values: C) -> Double? where C.Element: BinaryInteger {
        guard values.count >= 2 else { return nil }
        let mean = values.reduce(0.0) { $0 + Double($1) } / Double(values.count)
        let squares = values.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) }
        return (squares / Double(values.count - 1)).squareRoot()
    }
}
