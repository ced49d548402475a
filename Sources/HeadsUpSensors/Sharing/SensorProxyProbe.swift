import Foundation

/// Gathers ``SensorProxyEvidence`` for local devices: the bus answer is
/// given (HeadsUpSensors does not speak D-Bus; the runtime asks the system
/// bus), the udev property is read from udev's database, as
/// `udevadm info` does: `/run/udev/data/c<major>:<minor>`, lines `E:KEY=VALUE`,
/// the device numbers from sysfs `dev`.
public struct SensorProxyProbe: Sendable {
    public static let busName = "net.hadess.SensorProxy"
    public static let udevProperty = "IIO_SENSOR_PROXY_TYPE"

    /// What the system bus said, for every device alike.
    public var bus: String?
    public var sysfsDevices: String
    public var udevData: String

    public init(bus: String?, sysfsDevices: String = "/sys/bus/iio/devices", udevData: String = "/run/udev/data") {
        self.bus = bus
        self.sysfsDevices = sysfsDevices
        self.udevData = udevData
    }

    public func evidence(deviceID: String) -> SensorProxyEvidence {
        SensorProxyEvidence(bus: bus, udevType: udevType(deviceID: deviceID))
    }

    func udevType(deviceID: String) -> String? {
        guard let numbers = try? String(contentsOfFile: "\(sysfsDevices)/\(deviceID)/dev", encoding: .utf8) else { return nil }
        let path = "\(udevData)/c\(numbers.trimmingCharacters(in: .whitespacesAndNewlines))"
        guard let database = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return Self.property(Self.udevProperty, inUdevDatabase: database)
    }

    /// The value of `E:NAME=VALUE` in a udev database entry.
    static func property(_ name: String, inUdevDatabase text: String) -> String? {
        let prefix = "E:\(name)="
        return text.split(separator: "\n").first { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
    }
}
