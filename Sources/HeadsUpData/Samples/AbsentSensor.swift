/// A sensor a device may lack: the PinePhone Pro has no magnetometer in
/// mainline Linux, and the carry-positions walks recorded the accelerometer
/// only. The runtime feeds a missing sensor's three inputs to the model as
/// 0, so reading a session "without" one zeroes them the same way: that is
/// how `evaluate --without magnetometer` measures what a phone without it
/// would score.
public enum AbsentSensor: String, Sendable, Hashable, CaseIterable, Codable {
    case gyroscope
    case magnetometer

    /// Zeroes this sensor's readings in `sample`.
    public func remove(from sample: inout MotionSample) {
        switch self {
        case .gyroscope: sample.rotationRate = .zero
        case .magnetometer: sample.magneticField = .zero
        }
    }
}
