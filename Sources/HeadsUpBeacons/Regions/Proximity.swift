import Glibc

/// How close a beacon is, in CoreLocation's classes.
public enum Proximity: String, Sendable, Comparable, CaseIterable, Codable {
    case immediate, near, far, unknown

    private var order: Int { Proximity.allCases.firstIndex(of: self)! }
    public static func < (lhs: Proximity, rhs: Proximity) -> Bool { lhs.order < rhs.order }
}

/// Distance from RSSI with the AltBeacon library's path-loss curve:
/// d = A·(rssi/power)^B + C metres, and (rssi/power)^10 when the ratio is
/// below 1 (closer than 1 m). Coefficients differ per phone; these are the
/// Nexus 5 fit AltBeacon ships.
public struct DistanceModel: Sendable, Equatable {
    public var a: Double
    public var b: Double
    public var c: Double
    /// Upper bound (metres) of the immediate and near classes.
    public var immediateLimit: Double
    public var nearLimit: Double

    public init(a: Double = 0.42093, b: Double = 6.9476, c: Double = 0.54992, immediateLimit: Double = 0.5, nearLimit: Double = 3) {
        self.a = a
        self.b = b
        self.c = c
        self.immediateLimit = immediateLimit
        self.nearLimit = nearLimit
    }

    /// Metres, or `nil` when RSSI is unusable (0 or positive).
    public func distance(rssi: Double, measuredPower: Int) -> Double? {
        guard rssi < 0, measuredPower < 0 else { return nil }
        let ratio = rssi / Double(measuredPower)
        return ratio < 1 ? pow(ratio, 10) : a * pow(ratio, b) + c
    }

    public func proximity(distance: Double?) -> Proximity {
        guard let distance else { return .unknown }
        if distance < immediateLimit { return .immediate }
        if distance < nearLimit { return .near }
        return .far
    }
}
