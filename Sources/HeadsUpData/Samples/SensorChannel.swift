/// The nine model channels, in the order the model, the CSV and the windows
/// use them: accelerometer, gyroscope, magnetometer, each x, y, z.
public enum SensorChannel: Int, Sendable, CaseIterable, CustomStringConvertible {
    case accelerationX, accelerationY, accelerationZ
    case rotationRateX, rotationRateY, rotationRateZ
    case magneticFieldX, magneticFieldY, magneticFieldZ

    /// Number of channels in a model window.
    public static let count = 9

    /// Column name in the session CSV.
    public var csvName: String {
        ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "mag_x", "mag_y", "mag_z"][rawValue]
    }

    /// Unit the model expects (and the CSV stores).
    public var unit: String {
        switch self {
        case .accelerationX, .accelerationY, .accelerationZ: "g"
        case .rotationRateX, .rotationRateY, .rotationRateZ: "rad/s"
        case .magneticFieldX, .magneticFieldY, .magneticFieldZ: "µT"
        }
    }

    public var description: String { csvName }
}
