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

    /// Its three model channels.
    public var channels: [SensorChannel] {
        switch self {
        case .gyroscope: [.rotationRateX, .rotationRateY, .rotationRateZ]
        case .magnetometer: [.magneticFieldX, .magneticFieldY, .magneticFieldZ]
        }
    }
}

extension MotionWindow {
    /// The window with `sensors`' channels at 0: what the model is fed when
    /// its card says a sensor is not read (`input.feed`), as for a device
    /// without it.
    public func zeroing(_ sensors: Set<AbsentSensor>) -> MotionWindow {
        guard !sensors.isEmpty else { return self }
        var window = self
        for sensor in sensors {
            for channel in sensor.channels {
                let start = channel.rawValue * length
                for i in start..<start + length { window.channelMajorValues[i] = 0 }
            }
        }
        return window
    }
}
