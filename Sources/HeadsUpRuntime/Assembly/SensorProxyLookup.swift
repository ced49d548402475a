import HeadsUpDBus
import HeadsUpSensors

/// Whether iio-sensor-proxy may read this machine's sensors, as far as the
/// system bus says: its name net.hadess.SensorProxy is taken, or can be
/// activated (it is started on demand). The udev side is read per device
/// by ``SensorProxyProbe``.
public enum SensorProxyLookup {
    /// The probe for a context: only a `local:` context shares the kernel with this machine's proxy.
    public static func probe(uri: String) -> SensorProxyProbe? {
        uri.hasPrefix("local:") ? SensorProxyProbe(bus: systemBus()) : nil
    }

    /// What the system bus says about the proxy's name; nil when nothing (or no bus).
    public static func systemBus() -> String? {
        guard let bus = try? DBusConnection(.system) else { return nil }
        let name = SensorProxyProbe.busName
        if bus.owner(of: name) != nil { return "\(name) is taken on the system bus" }
        let activatable = try? bus.call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "ListActivatableNames")
        if case .array(_, let names)? = activatable?.first, names.contains(.string(name)) {
            return "\(name) can be activated on the system bus"
        }
        return nil
    }
}
