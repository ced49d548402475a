import Foundation
import HeadsUpDBus
import HeadsUpTestSupport
import Testing

/// `DBusConnection.addMatch` enforces the rule's `sender=` on a private
/// dbus-daemon: a signal addressed to this connection by another client
/// (which the bus delivers whatever the match rule says) is dropped and
/// counted; the owner of the name is followed through the bus driver's
/// NameOwnerChanged, and a forged NameOwnerChanged changes nothing.
@Suite("D-Bus senders checked, on a private bus")
struct DBusSenderCheckSystemTests {
    static let script = """
        import sys, time, dbus, dbus.bus, dbus.lowlevel
        address, listener = sys.argv[1], sys.argv[2]
        def connect():
            return dbus.bus.BusConnection(address)
        def ping(conn, number, to=None, path="/org/example/Test"):
            m = dbus.lowlevel.SignalMessage(path, "org.example.Test", "Ping")
            if to: m.set_destination(to)
            m.append(dbus.Int32(number), signature="i")
            conn.send_message(m)
            conn.flush()
            time.sleep(0.1)
        owner = connect()
        owner.request_name("org.example.Owner")
        spoofer = connect()
        print("READY", flush=True)
        sys.stdin.readline()
        ping(owner, 1)
        ping(spoofer, 2, to=listener)
        forged = dbus.lowlevel.SignalMessage("/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged")
        forged.set_destination(listener)
        forged.append("org.example.Owner", owner.get_unique_name(), spoofer.get_unique_name(), signature="sss")
        spoofer.send_message(forged)
        spoofer.flush()
        time.sleep(0.1)
        ping(spoofer, 3, to=listener)
        owner.release_name("org.example.Owner")
        successor = connect()
        successor.request_name("org.example.Owner")
        time.sleep(0.1)
        ping(successor, 4)
        ping(owner, 5, to=listener)
        print("DONE", flush=True)
        sys.stdin.readline()
        """

    @Test func onlyTheCurrentOwnersSignalsAreDelivered() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let connection = try DBusConnection(.address(bus.address))
        var pings: [Int32] = []
        var ownerChanges: [[String]] = []
        try connection.addMatch("type='signal',sender='org.example.Owner',interface='org.example.Test',member='Ping'") { signal in
            if case .int32(let number) = signal.arguments.first { pings.append(number) }
        }
        try connection.addMatch(
            "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='org.example.Owner'"
        ) { signal in ownerChanges.append(signal.arguments.compactMap(\.string)) }
        let listener = try #require(connection.uniqueName)
        let peers = try BackgroundProcess(PrivateDBus.python, ["-c", Self.script, bus.address, listener], environment: bus.environment)
        defer { peers.send("end") }
        #expect(peers.wait(for: "READY", timeout: 10), "\(peers.standardError)")
        // The owner claimed the name before this: followed from GetNameOwner, then from the driver's signals.
        peers.send("go")
        let deadline = Date().addingTimeInterval(15)
        while !peers.standardOutput.contains("DONE"), Date() < deadline { try connection.process(timeout: 0.05) }
        for _ in 0..<10 { try connection.process(timeout: 0.05) }

        #expect(pings == [1, 4], "the owner's, then its successor's; not the spoofer's (2, 3) nor the former owner's (5)")
        // The spoofer's two pings and the former owner's; the forged NameOwnerChanged too, unless sd-bus's own
        // matching already left it out (a rule naming the driver, a name no client can take, may be matched locally).
        #expect(connection.foreignSignalCount >= 3, "\(connection.foreignSignalCount)")
        // Only the driver's: the owner arriving, leaving, its successor arriving; never the forged change to the spoofer.
        #expect(ownerChanges.count == 3, "\(ownerChanges)")
        #expect(ownerChanges.allSatisfy { $0.count == 3 && $0[0] == "org.example.Owner" })
        #expect(
            ownerChanges.map { $0.count == 3 ? ($0[1].isEmpty, $0[2].isEmpty) : (false, false) }.elementsEqual(
                [(true, false), (false, true), (true, false)], by: ==))
    }

    @Test func aRulesSenderIsReadAsTheSpecificationWritesIt() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let connection = try DBusConnection(.address(bus.address))
        // A rule without sender= takes anyone's signals (tests and monitors use such rules).
        var anyone = 0
        try connection.addMatch("type='signal',interface='org.example.Test',member='Ping'") { _ in anyone += 1 }
        let send = """
            import dbus, dbus.lowlevel
            bus = dbus.SessionBus()
            m = dbus.lowlevel.SignalMessage("/x", "org.example.Test", "Ping")
            m.append(dbus.Int32(7), signature="i")
            bus.send_message(m)
            bus.flush()
            """
        #expect(try runProcess(PrivateDBus.python, ["-c", send], environment: bus.environment).status == 0)
        let deadline = Date().addingTimeInterval(10)
        while anyone == 0, Date() < deadline { try connection.process(timeout: 0.1) }
        #expect(anyone == 1)
        #expect(connection.foreignSignalCount == 0)
    }

    /// A flood of signals is worked off a bounded slice per call, so the
    /// caller's other work (scoring) runs between slices; nothing is lost.
    @Test func aFloodIsDispatchedASliceAtATime() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let connection = try DBusConnection(.address(bus.address))
        var received = 0
        try connection.addMatch("type='signal',interface='org.example.Flood',member='Ping'") { _ in received += 1 }
        let flood = """
            import dbus, dbus.lowlevel
            bus = dbus.SessionBus()
            for i in range(3000):
                m = dbus.lowlevel.SignalMessage("/x", "org.example.Flood", "Ping")
                m.append(dbus.Int32(i), signature="i")
                bus.send_message(m)
            bus.flush()
            """
        #expect(try runProcess(PrivateDBus.python, ["-c", flood], environment: bus.environment).status == 0)
        // The bus hands the flood over as the socket takes it; each call takes at most its slice.
        usleep(200_000)
        try connection.process(timeout: 0, maximumMessages: 500)
        #expect(received > 0 && received <= 500, "\(received)")
        var calls = 1
        let deadline = Date().addingTimeInterval(10)
        while received < 3000, Date() < deadline {
            let before = received
            try connection.process(timeout: 0.05, maximumMessages: 500)
            #expect(received - before <= 500)
            calls += 1
        }
        #expect(received == 3000)
        #expect(calls >= 6)
    }
}
