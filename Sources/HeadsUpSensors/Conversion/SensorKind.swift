/// The three motion sensors HeadsUp reads, each in the model's unit.
public enum SensorKind: String, Sendable, CaseIterable, Hashable, Codable {
    case accelerometer
    case gyroscope
    case magnetometer

    // Hashed and compared by case. A String raw value would otherwise be
    // what is hashed (RawRepresentable's default): the sensor reader keys
    // dictionaries by sensor for every sample, and String.hash(into:) was
    // 12 % of the idle daemon's instructions under callgrind
    // (docs/notes/2026-11-28-battery-cost.md).
    public func hash(into hasher: inout Hasher) { hasher.combine(ordinal) }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.ordinal == rhs.ordinal }

    private var ordinal: UInt8 {
        switch self {
        case .accelerometer: 0
        case .gyroscope: 1
        case .magnetometer: 2
        }
    }

    /// The IIO channel type prefix (`in_accel_x_raw`, …).
    public var iioType: String {
        switch self {
        case .accelerometer: "accel"
        case .gyroscope: "anglvel"
        case .magnetometer: "magn"
        }
    }

    /// The model's unit.
    public var modelUnit: String {
        switch self {
        case .accelerometer: "g"
        case .gyroscope: "rad/s"
        case .magnetometer: "µT"
        }
    }

    /// Multiply an IIO value (m/s², rad/s, Gauss) by this to get the model's unit.
    public var factorFromIIO: Double {
        switch self {
        case .accelerometer: 1 / 9.80665
        case .gyroscope: 1
        case .magnetometer: 100
        }
    }
}
