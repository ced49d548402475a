/// Guesses a recording's units from its first rows, so a log from another
/// phone can be read without the user knowing what its app wrote.
///
/// Timestamps: values that look like Unix time (between the years 2000 and
/// 2100) in one unit decide it; otherwise the median step between rows must
/// be a plausible sensor period (0.1 ms … 0.5 s) in the chosen unit.
/// Acceleration: a phone measures gravity plus motion, so the median
/// magnitude is about 1 in g and about 9.8 in m/s²; 4 separates them.
public enum UnitDetector {
    /// What was decided and why, for the user to read and, if wrong, override.
    public struct Guess<Unit: Sendable>: Sendable {
        public var unit: Unit
        public var reason: String
    }

    static let unixTimeRangeInSeconds = 946_684_800.0...4_102_444_800.0
    static let plausibleSensorPeriod = 0.000_1...0.5
    static let accelerationMagnitudeThreshold = 4.0

    /// `timestamps` in file order as written (unknown unit).
    public static func timeUnit(of timestamps: [Double]) -> Guess<TimeUnit> {
        guard let first = timestamps.first else {
            return Guess(unit: .seconds, reason: "no rows; assuming seconds")
        }
        for unit in TimeUnit.allCases where unixTimeRangeInSeconds.contains(first * unit.secondsPerUnit) {
            return Guess(unit: unit, reason: "timestamps look like Unix time in \(unit.name)")
        }
        let steps = zip(timestamps, timestamps.dropFirst()).map { $1 - $0 }.filter { $0 > 0 }
        guard let step = median(steps) else {
            return Guess(unit: .seconds, reason: "too few increasing timestamps to tell; assuming seconds")
        }
        for unit in TimeUnit.allCases where plausibleSensorPeriod.contains(step * unit.secondsPerUnit) {
            let hertz = 1 / (step * unit.secondsPerUnit)
            return Guess(unit: unit, reason: "median step \(formatted(step)) reads as \(formatted(hertz)) Hz in \(unit.name)")
        }
        return Guess(unit: .seconds, reason: "median step \(formatted(step)) fits no unit; assuming seconds")
    }

    /// `accelerations` as written (unknown unit).
    public static func accelerationUnit(of accelerations: [SIMD3<Double>]) -> Guess<AccelerationUnit> {
        guard let magnitude = median(accelerations.map { ($0 * $0).sum().squareRoot() }) else {
            return Guess(unit: .standardGravity, reason: "no rows; assuming g")
        }
        if magnitude > accelerationMagnitudeThreshold {
            return Guess(
                unit: .metersPerSecondSquared,
                reason: "median acceleration magnitude \(formatted(magnitude)) looks like m/s² (gravity ≈ 9.8)")
        }
        return Guess(
            unit: .standardGravity,
            reason: "median acceleration magnitude \(formatted(magnitude)) looks like g (gravity ≈ 1)")
    }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    private static func formatted(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        // Whole numbers without ".0", as long as they fit (a damaged row can hold 4e171).
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }
}
