/// The unit of a recording's timestamp column. HeadsUp works in seconds;
/// Android loggers often write milliseconds (or sensor-event nanoseconds).
public enum TimeUnit: String, Sendable, CaseIterable, Codable {
    case seconds = "s"
    case milliseconds = "ms"
    case microseconds = "us"
    case nanoseconds = "ns"

    /// Multiply a timestamp in this unit by this to get seconds.
    public var secondsPerUnit: Double {
        switch self {
        case .seconds: 1
        case .milliseconds: 1e-3
        case .microseconds: 1e-6
        case .nanoseconds: 1e-9
        }
    }

    public var name: String {
        switch self {
        case .seconds: "seconds"
        case .milliseconds: "milliseconds"
        case .microseconds: "microseconds"
        case .nanoseconds: "nanoseconds"
        }
    }
}

/// The unit of a recording's accelerometer columns. The model wants g;
/// Android and IIO report m/s².
public enum AccelerationUnit: String, Sendable, CaseIterable, Codable {
    case standardGravity = "g"
    case metersPerSecondSquared = "m/s2"

    /// Standard gravity, the exact conversion factor between the two.
    public static let standardGravityInMetersPerSecondSquared = 9.80665

    /// Multiply a value in this unit by this to get g.
    public var gPerUnit: Double {
        self == .standardGravity ? 1 : 1 / Self.standardGravityInMetersPerSecondSquared
    }

    public var name: String { self == .standardGravity ? "g" : "m/s²" }
}
