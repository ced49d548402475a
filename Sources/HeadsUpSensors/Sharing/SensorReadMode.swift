/// `sensors.mode`: how HeadsUp reads a device that could be read either way.
///
/// A device with an IIO buffer can be streamed (kernel timestamps, fewest
/// wake-ups) or polled through its `in_*_raw` attributes. The kernel lets one
/// process own the buffer and refuses raw reads while it is on, so on a phone
/// where iio-sensor-proxy also reads the accelerometer only polling lets both
/// run: sysfs reads are not exclusive.
public enum SensorReadMode: String, Sendable, CaseIterable {
    /// Poll where iio-sensor-proxy may read the device, else buffer.
    case auto
    /// Buffer wherever the device has one (and wait while someone else holds it).
    case buffer
    /// Always poll `in_*_raw` at 50 Hz.
    case poll

    /// The default of `sensors.mode` and of the sensor commands' `--mode`.
    public static let standard = SensorReadMode.auto
}

/// What says iio-sensor-proxy may read a device: its name on the system
/// bus (owned, or activatable), or the udev property its rules set on the
/// device. Gathered at the system edges (D-Bus, the udev database); judged
/// by ``ReadPath/choose(mode:buffer:proxy:)``.
public struct SensorProxyEvidence: Sendable, Equatable {
    /// What the system bus says ("net.hadess.SensorProxy is taken on the system bus"); nil: nothing.
    public var bus: String?
    /// The device's `IIO_SENSOR_PROXY_TYPE` (`iio-buffer-accel`, `iio-poll-accel`, …).
    public var udevType: String?

    public init(bus: String? = nil, udevType: String? = nil) {
        self.bus = bus
        self.udevType = udevType
    }

    public static let none = SensorProxyEvidence()

    public var isPresent: Bool { bus != nil || udevType != nil }

    /// Why the proxy may read the device, in words.
    public var explanation: String? {
        let parts = [bus, udevType.map { "udev gives it IIO_SENSOR_PROXY_TYPE=\($0)" }].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}

/// Whether a device's IIO buffer can stream.
public enum BufferAbility: Sendable, Equatable {
    /// Scan elements with a timestamp, and a trigger or a FIFO that drives them.
    case usable
    /// No scan elements with a timestamp.
    case none
    /// A triggered buffer with no trigger: the sensor's interrupt is not
    /// wired (the Librem 5's and Sense HAT's LSM9DS1 accelerometer and
    /// gyroscope), so `buffer/enable` fails until someone attaches one.
    case needsTrigger

    var whyNot: String {
        switch self {
        case .usable: ""
        case .none: "the device has no buffer (no scan elements with a timestamp)"
        case .needsTrigger:
            "its buffer needs a trigger and none is attached (the sensor's interrupt is not wired; an hrtimer trigger would do, "
                + "docs/phones-and-boards.md)"
        }
    }
}

/// The path a device is read by, and why: shown by `sensors list` and `status`.
public struct ReadPath: Sendable, Equatable {
    public var mode: SensorSource.Mode
    public var reason: String

    public init(mode: SensorSource.Mode, reason: String) {
        self.mode = mode
        self.reason = reason
    }

    /// Pure: the setting, whether the device's buffer can stream, and what
    /// says the proxy may read it.
    public static func choose(mode: SensorReadMode, buffer: BufferAbility, proxy: SensorProxyEvidence) -> ReadPath {
        guard buffer == .usable else { return ReadPath(mode: .polled, reason: buffer.whyNot) }
        switch mode {
        case .poll:
            return ReadPath(mode: .polled, reason: "sensors.mode is poll")
        case .buffer:
            let note = proxy.explanation.map { " (although \($0): HeadsUp and the proxy cannot both use the buffer)" } ?? ""
            return ReadPath(mode: .buffered, reason: "sensors.mode is buffer" + note)
        case .auto:
            if let why = proxy.explanation {
                return ReadPath(mode: .polled, reason: "sensors.mode is auto and iio-sensor-proxy may read it (\(why)): polling sysfs shares it")
            }
            return ReadPath(mode: .buffered, reason: "sensors.mode is auto and no iio-sensor-proxy is in sight")
        }
    }
}
