import Foundation
import HeadsUpDBus
import HeadsUpTestSupport
import Testing

/// `DBusConnection.addMatch(_:accept:handler:)` on a private dbus-daemon:
/// the head a busy BlueZ's updates are judged by before decoding. (HeadsUpDBus
/// has no test target of its own; this one already links it.)
@Suite("D-Bus signal heads, on a private bus")
struct DBusSignalHeadSystemTests {
    static let sender = """
        import dbus, dbus.lowlevel
        bus = dbus.SessionBus()
        def send(path, changed, invalidated):
            m = dbus.lowlevel.SignalMessage(path, "org.freedesktop.DBus.Properties", "PropertiesChanged")
            m.append("org.bluez.Device1", dbus.Dictionary(changed, signature="sv"), dbus.Array(invalidated, signature="s"), signature="sa{sv}as")
            bus.send_message(m)
        send("/org/bluez/hci0/dev_01", {"RSSI": dbus.Int16(-60)}, [])
        data = dbus.Dictionary({dbus.UInt16(0x4C): dbus.ByteArray(b"\\x02\\x15")}, signature="qv")
        send("/org/bluez/hci0/dev_02", {"RSSI": dbus.Int16(-61), "ManufacturerData": data}, ["TxPower"])
        send("/org/bluez/hci0/dev_03", {"RSSI": dbus.Int16(-62)}, [])
        bus.flush()
        """

    @Test func propertyNamesAreReadWithoutTheValuesAndARefusedSignalNeverReachesTheHandler() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let connection = try DBusConnection(.address(bus.address))
        var heads: [DBusSignalHead] = []
        var delivered: [DBusSignal] = []
        try connection.addMatch(
            "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
            accept: { head in
                heads.append(head)
                return head.path != "/org/bluez/hci0/dev_01"
            },
            handler: { delivered.append($0) })
        let sent = try runProcess(PrivateDBus.python, ["-c", Self.sender], environment: bus.environment)
        #expect(sent.status == 0, "\(sent)")
        let deadline = Date().addingTimeInterval(10)
        while heads.count < 3, Date() < deadline { try connection.process(timeout: 0.2) }

        #expect(heads.map(\.path) == ["/org/bluez/hci0/dev_01", "/org/bluez/hci0/dev_02", "/org/bluez/hci0/dev_03"])
        #expect(
            heads.map(\.changedProperties) == [
                .init(interface: "org.bluez.Device1", names: ["RSSI"]),
                .init(interface: "org.bluez.Device1", names: ["RSSI", "ManufacturerData", "TxPower"]),
                .init(interface: "org.bluez.Device1", names: ["RSSI"]),
            ])
        #expect(delivered.map(\.path) == ["/org/bluez/hci0/dev_02", "/org/bluez/hci0/dev_03"], "the refused one is dropped")
        // Reading the names rewinds the message: the handler still gets every argument.
        let full = try #require(delivered.first)
        #expect(full.arguments.count == 3)
        #expect(full.arguments[0].string == "org.bluez.Device1")
        #expect(full.arguments[1].stringKeyed?["RSSI"]?.unwrapped == .int16(-61))
        #expect(full.arguments[2].items?.compactMap(\.string) == ["TxPower"])
    }

    /// A removed subscription delivers nothing more; the others still do
    /// (the screen monitor narrows logind's to one session this way).
    @Test func aRemovedMatchStopsDelivering() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let connection = try DBusConnection(.address(bus.address))
        var wide: [String] = []
        var narrow: [String] = []
        let everything = try connection.addMatch("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'") {
            wide.append($0.path)
        }
        try connection.addMatch("type='signal',interface='org.freedesktop.DBus.Properties',path='/org/bluez/hci0/dev_03'") {
            narrow.append($0.path)
        }
        connection.removeMatch(everything)
        connection.removeMatch(everything)  // twice is harmless
        let sent = try runProcess(PrivateDBus.python, ["-c", Self.sender], environment: bus.environment)
        #expect(sent.status == 0, "\(sent)")
        let deadline = Date().addingTimeInterval(10)
        while narrow.isEmpty, Date() < deadline { try connection.process(timeout: 0.2) }
        try connection.process(timeout: 0.3)
        #expect(narrow == ["/org/bluez/hci0/dev_03"])
        #expect(wide.isEmpty, "the removed subscription got \(wide)")
    }
}
