/// The session file format HeadsUp records and reads, the seed app's:
///
///     mode,timestamp,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z,mag_x,mag_y,mag_z
///
/// No header (one is tolerated when reading), `mode` 1 = hands / 0 = pocket,
/// timestamp in seconds, acceleration in g, rotation rate in rad/s,
/// magnetic field in µT.
public enum SessionCSVFormat {
    public static let columnNames = ["mode", "timestamp"] + SensorChannel.allCases.map(\.csvName)
    public static let columnCount = 11
    public static let header = columnNames.joined(separator: ",")
}
