/// How one IIO device feeds HeadsUp: which sensors it carries, their
/// channels and calibration, its mount matrix, rate and read mode. Made by
/// ``SensorDiscovery``; a plain value, so `headsup sensors list` can print it.
public struct SensorSource: Sendable, Equatable {
    public enum Mode: String, Sendable {
        /// Kernel buffer with scan elements: timestamps from the kernel.
        case buffered
        /// No buffer: `_raw` attributes read on a 20 ms deadline tick.
        case polled
    }

    public struct Channel: Sendable, Equatable {
        public var id: String
        public var scale: Double
        public var offset: Double
    }

    public var deviceName: String
    public var deviceID: String
    /// x, y, z channels per sensor on this device.
    public var channels: [SensorKind: [Channel]]
    public var mountMatrices: [SensorKind: MountMatrix]
    /// Where each mount matrix came from (attribute name), for display.
    public var mountMatrixSources: [SensorKind: String]
    public var availableRates: String?
    public var requestedRate: Double?
    /// What the driver reports after the write (drivers round).
    public var rate: Double?
    /// How long one `_raw` read took at `rate` (polled devices), seconds.
    public var rawReadSeconds: Double?
    /// The driver waits for a fresh sample on every read (``OneShotReads``):
    /// the device runs at its highest rate and each reading is stamped at
    /// the middle of its read.
    public var readsWaitForSample = false
    public var mode: Mode
    /// Why this mode (the setting, the device, iio-sensor-proxy), for `sensors list` and `status`.
    public var modeReason = ""
    public var timestampChannel: String?
    public var trigger: String?
    /// The clock the kernel stamps samples with ("realtime", "monotonic", …).
    public var timestampClock: String

    public var kinds: [SensorKind] { SensorKind.allCases.filter { channels[$0] != nil } }

    /// What a device without a magnetometer (the PinePhone Pro) means for the
    /// model; said by `sensors list` and when live starts.
    public static let noMagnetometerNote =
        "no magnetometer: the model's three magnetometer inputs are 0, as in the windows it was trained with for phones without one "
        + "(`headsup evaluate --without magnetometer` measures the difference; docs/phones-and-boards.md gives the shipped model's figures)"
}
