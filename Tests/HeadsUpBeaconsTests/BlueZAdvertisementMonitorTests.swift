import Foundation
import HeadsUpBeacons
import HeadsUpBlueZ
import HeadsUpDBus
import Testing

/// The advertisement monitor bluetoothd reads: its or-patterns against the
/// bytes real beacons send, the object tree's shape, and what each call means.
@Suite("BlueZ advertisement monitor")
struct BlueZAdvertisementMonitorTests {
    static let uuid = UUID(uuidString: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!
    static let iBeacon = BeaconRegion(name: "crossing", pattern: .iBeacon(uuid: uuid, major: 1, minor: nil))
    static let altBeacon = BeaconRegion(name: "alt", pattern: .altBeacon(idPrefix: [0x01, 0x02, 0x03]))
    static let eddystone = BeaconRegion(name: "ed", pattern: .eddystone(namespace: Array(repeating: 7, count: 10), instance: nil))

    /// Manufacturer data AD bytes (after the type): company id little endian, then the payload.
    static func manufacturer(_ company: UInt16, _ payload: [UInt8]) -> [UInt8] {
        [UInt8(company & 0xFF), UInt8(company >> 8)] + payload
    }

    static func iBeaconPayload(_ uuid: UUID) -> [UInt8] {
        [0x02, 0x15] + withUnsafeBytes(of: uuid.uuid) { Array($0) } + [0x00, 0x01, 0x00, 0x02, 0xC5]
    }

    func matches(_ patterns: [BlueZAdvertisementMonitor.Pattern], _ adType: UInt8, _ data: [UInt8]) -> Bool {
        patterns.contains { $0.matches(adType: adType, data: data) }
    }

    @Test func theRegionsPatternsMatchTheirBeaconsAndNotTheStreet() {
        let patterns = BlueZAdvertisementMonitor.patterns(for: [Self.iBeacon, Self.altBeacon, Self.eddystone])
        #expect(patterns.count == 3)
        #expect(matches(patterns, 0xFF, Self.manufacturer(0x004C, Self.iBeaconPayload(Self.uuid))))
        let other = UUID(uuidString: "11111111-2222-3333-4444-555555555555")!
        #expect(!matches(patterns, 0xFF, Self.manufacturer(0x004C, Self.iBeaconPayload(other))), "another UUID's iBeacon")
        #expect(!matches(patterns, 0xFF, Self.manufacturer(0x004C, [0x10, 0x05, 0x01, 0x18])), "an iPhone's nearby info")
        #expect(!matches(patterns, 0xFF, Self.manufacturer(0x0006, [0x01, 0x09, 0x20, 0x02])), "a Windows PC")
        let altPayload: [UInt8] = [0xBE, 0xAC, 0x01, 0x02, 0x03] + Array(repeating: 9, count: 17) + [0xC5, 0x00]
        #expect(matches(patterns, 0xFF, Self.manufacturer(0x0118, altPayload)), "AltBeacon, any company")
        #expect(!matches(patterns, 0xFF, Self.manufacturer(0x0118, [0xBE, 0xAC, 0x09, 0x09])), "another AltBeacon id")
        let eddystoneUID: [UInt8] = [0xAA, 0xFE, 0x00, 0xEE] + Array(repeating: 7, count: 10) + Array(repeating: 1, count: 6)
        #expect(matches(patterns, 0x16, eddystoneUID))
        #expect(!matches(patterns, 0x16, [0x2C, 0xFE, 0x00]), "another service's data")
        #expect(!matches(patterns, 0xFF, eddystoneUID), "the right bytes in the wrong AD type")
    }

    @Test func noRegionsMatchEveryBeaconKindAndPatternsAreNotRepeated() {
        let every = BlueZAdvertisementMonitor.patterns(for: [])
        #expect(matches(every, 0xFF, Self.manufacturer(0x004C, Self.iBeaconPayload(UUID()))))
        #expect(matches(every, 0xFF, Self.manufacturer(0x0118, [0xBE, 0xAC, 0x05])))
        #expect(matches(every, 0x16, [0xAA, 0xFE, 0x00, 0x00]))
        let twice = BeaconRegion(name: "again", pattern: .iBeacon(uuid: Self.uuid, major: 2, minor: 3))
        #expect(BlueZAdvertisementMonitor.patterns(for: [Self.iBeacon, twice]).count == 1, "one UUID, one pattern")
        let long = BeaconRegion(name: "long", pattern: .altBeacon(idPrefix: Array(repeating: 1, count: 40)))
        let pattern = BlueZAdvertisementMonitor.patterns(for: [long])[0]
        #expect(Int(pattern.start) + pattern.content.count <= 29, "fits an AD structure")
    }

    @Test func theObjectTreeIsWhatBluetoothdReads() throws {
        let monitor = BlueZAdvertisementMonitor(root: "/org/headsup/beacons", regions: [Self.iBeacon])
        let tree = monitor.objectTree
        let reply = tree.answer(DBusMethodCall(path: "/org/headsup/beacons", interface: DBusObjectTree.objectManager, member: "GetManagedObjects"))
        guard case .reply(let values) = reply else {
            Issue.record("GetManagedObjects: \(reply)")
            return
        }
        #expect(values.map(\.signature) == ["a{oa{sa{sv}}}"])
        let objects = try #require(values.first?.entries)
        #expect(objects.map(\.key) == [.objectPath("/org/headsup/beacons/monitor0")])
        let properties = try #require(objects.first?.value.stringKeyed?[BlueZAdvertisementMonitor.interface]?.stringKeyed)
        #expect(properties["Type"]?.string == "or_patterns")
        let patterns = try #require(properties["Patterns"]?.unwrapped)
        #expect(patterns.signature == "a(yyay)")
        #expect(properties["RSSILowThreshold"] == nil, "no RSSI thresholds: weak readings still arrive")
        let first = try #require(patterns.items?.first?.items)
        #expect(first[0] == .byte(0) && first[1] == .byte(0xFF))
        #expect(first[2].bytes == [0x4C, 0x00, 0x02, 0x15] + withUnsafeBytes(of: Self.uuid.uuid) { Array($0) })

        let path = monitor.monitorPath
        let get = tree.answer(
            DBusMethodCall(
                path: path, interface: DBusObjectTree.properties, member: "Get",
                arguments: [.string(BlueZAdvertisementMonitor.interface), .string("Type")]))
        #expect(get == .reply([.variant(.string("or_patterns"))]))
        let all = tree.answer(
            DBusMethodCall(
                path: path, interface: DBusObjectTree.properties, member: "GetAll", arguments: [.string(BlueZAdvertisementMonitor.interface)]))
        if case .reply(let values) = all {
            #expect(values.first?.stringKeyed?.keys.sorted() == ["Patterns", "Type"])
        } else {
            Issue.record("GetAll: \(all)")
        }
        let unknown = tree.answer(
            DBusMethodCall(
                path: path, interface: DBusObjectTree.properties, member: "Get",
                arguments: [.string(BlueZAdvertisementMonitor.interface), .string("RSSIHighThreshold")]))
        if case .error(let name, _) = unknown { #expect(name == "org.freedesktop.DBus.Error.UnknownProperty") } else { Issue.record("\(unknown)") }
        let wrong = tree.answer(DBusMethodCall(path: path, interface: DBusObjectTree.properties, member: "Get", arguments: [.int32(1)]))
        if case .error(let name, _) = wrong { #expect(name == "org.freedesktop.DBus.Error.InvalidArgs") } else { Issue.record("\(wrong)") }
        let set = tree.answer(DBusMethodCall(path: path, interface: DBusObjectTree.properties, member: "Set", arguments: []))
        if case .error(let name, _) = set { #expect(name == "org.freedesktop.DBus.Error.PropertyReadOnly") } else { Issue.record("\(set)") }
        #expect(tree.answer(DBusMethodCall(path: path, interface: "org.example.Other", member: "Ping")) == .notHandled)
    }

    @Test func bluetoothdsCallsAreAnsweredAndSayWhatHappened() {
        let monitor = BlueZAdvertisementMonitor(root: "/r", regions: [])
        func call(_ member: String, _ arguments: [DBusValue] = []) -> (DBusMethodOutcome, BlueZAdvertisementMonitor.Event?) {
            monitor.answer(DBusMethodCall(path: "/r/monitor0", interface: BlueZAdvertisementMonitor.interface, member: member, arguments: arguments))
        }
        #expect(call("Activate") == (.reply([]), .activated))
        #expect(call("Release") == (.reply([]), .released))
        #expect(call("DeviceFound", [.objectPath("/org/bluez/hci0/dev_1")]) == (.reply([]), .deviceFound(path: "/org/bluez/hci0/dev_1")))
        #expect(call("DeviceLost", [.objectPath("/org/bluez/hci0/dev_1")]) == (.reply([]), .deviceLost(path: "/org/bluez/hci0/dev_1")))
        let (outcome, event) = call("DeviceFound", [.string("not a path")])
        #expect(event == nil)
        if case .error(let name, _) = outcome { #expect(name == "org.freedesktop.DBus.Error.InvalidArgs") } else { Issue.record("\(outcome)") }
        #expect(call("Frobnicate") == (.notHandled, nil))
        let elsewhere = monitor.answer(DBusMethodCall(path: "/r/other", interface: BlueZAdvertisementMonitor.interface, member: "Activate"))
        #expect(elsewhere.1 == nil, "only the monitor's own path is the monitor")
    }
}
