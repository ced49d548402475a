import Foundation
import HeadsUpDBus
import HeadsUpTestSupport
import Testing

/// `DBusConnection.export(under:handler:)` on a private dbus-daemon, called
/// by a python client as bluetoothd calls an advertisement monitor: the
/// a{oa{sa{sv}}} and a(yyay) replies as a peer decodes them, method calls
/// with their arguments, error replies, and unexport. (HeadsUpDBus has no
/// test target of its own; this one already links it.)
@Suite("D-Bus exported objects, on a private bus")
struct DBusExportSystemTests {
    static let client = """
        import json, sys, dbus
        bus = dbus.SessionBus()
        name = sys.argv[1]
        root = bus.get_object(name, "/org/test/app")
        objects = root.GetManagedObjects(dbus_interface="org.freedesktop.DBus.ObjectManager")
        result = {"objects": {str(p): {str(i): sorted(str(k) for k in props) for i, props in ifaces.items()} for p, ifaces in objects.items()}}
        monitor = bus.get_object(name, "/org/test/app/monitor0")
        patterns = monitor.Get("org.example.Monitor1", "Patterns", dbus_interface="org.freedesktop.DBus.Properties")
        result["signature"] = patterns.signature
        result["patterns"] = [[int(s), int(t), [int(b) for b in c]] for s, t, c in patterns]
        result["type"] = str(monitor.GetAll("org.example.Monitor1", dbus_interface="org.freedesktop.DBus.Properties")["Type"])
        monitor.DeviceFound(dbus.ObjectPath("/org/bluez/hci0/dev_1"), dbus_interface="org.example.Monitor1")
        try:
            monitor.Fail(dbus_interface="org.example.Monitor1")
        except dbus.exceptions.DBusException as e:
            result["error"] = [e.get_dbus_name(), e.get_dbus_message()]
        try:
            monitor.Unknown(dbus_interface="org.example.Monitor1")
        except dbus.exceptions.DBusException as e:
            result["unknown"] = e.get_dbus_name()
        print(json.dumps(result))
        """

    @Test func aPeerReadsTheTreeAndCallsTheMonitor() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let connection = try DBusConnection(.address(bus.address))
        var tree = DBusObjectTree(root: "/org/test/app")
        let pattern = DBusValue.structure([.byte(0), .byte(0xFF), .array(elementSignature: "y", [.byte(0x4C), .byte(0x00)])])
        tree.set(
            path: "/org/test/app/monitor0", interface: "org.example.Monitor1",
            properties: ["Type": .string("or_patterns"), "Patterns": .array(elementSignature: "(yyay)", [pattern])])
        var calls: [DBusMethodCall] = []
        let export = try connection.export(under: "/org/test/app") { call in
            calls.append(call)
            if call.interface == "org.example.Monitor1" {
                switch call.member {
                case "DeviceFound": return .reply([])
                case "Fail": return .error(name: "org.example.Error.Refused", message: "refused here")
                default: return .notHandled
                }
            }
            return tree.answer(call)
        }
        let name = try #require(connection.uniqueName)
        let output = try serve(connection, while: Self.client, [name], bus: bus)
        let result = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "client said: \(output)")
        #expect((result["objects"] as? [String: [String: [String]]]) == ["/org/test/app/monitor0": ["org.example.Monitor1": ["Patterns", "Type"]]])
        #expect(result["signature"] as? String == "(yyay)")
        #expect((result["patterns"] as? [[Any]]).map { "\($0)" } == "\([[0, 255, [76, 0]]])")
        #expect(result["type"] as? String == "or_patterns")
        #expect((result["error"] as? [String]) == ["org.example.Error.Refused", "refused here"])
        #expect(result["unknown"] as? String == "org.freedesktop.DBus.Error.UnknownMethod")
        let found = calls.first { $0.member == "DeviceFound" }
        #expect(found?.arguments == [.objectPath("/org/bluez/hci0/dev_1")])
        #expect(found?.sender?.hasPrefix(":") == true)

        connection.unexport(export)
        let after = try serve(
            connection,
            while: """
                import dbus, sys
                try:
                    dbus.SessionBus().get_object(sys.argv[1], "/org/test/app", introspect=False).GetManagedObjects(dbus_interface="org.freedesktop.DBus.ObjectManager")
                    print("answered")
                except dbus.exceptions.DBusException as e:
                    print(e.get_dbus_name())
                """, [name], bus: bus)
        #expect(!after.contains("answered"), "an unexported tree is not served: \(after)")
    }

    /// Runs a python client while this connection answers its calls, and returns what it printed.
    func serve(_ connection: DBusConnection, while script: String, _ arguments: [String], bus: PrivateDBus) throws -> String {
        let client = try BackgroundProcess(PrivateDBus.python, ["-c", script] + arguments, environment: bus.environment)
        let deadline = Date().addingTimeInterval(20)
        while client.isRunning, Date() < deadline { try connection.process(timeout: 0.05) }
        client.finish(timeout: 1)
        #expect(client.standardError.isEmpty, "\(client.standardError)")
        return client.standardOutput
    }
}
