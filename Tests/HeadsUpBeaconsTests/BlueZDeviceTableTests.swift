import Foundation
import HeadsUpBeacons
import HeadsUpBlueZ
import HeadsUpDBus
import Testing

/// The device table under address rotation: what leaves stays gone.
@Suite("BlueZ device table")
struct BlueZDeviceTableTests {
    /// PropertiesChanged(Device1, {RSSI: n, ManufacturerData: {0x004c: ay}}) with `bytes` as Apple data.
    func advertisement(rssi: Int16, appleData bytes: [UInt8]) -> [DBusValue] {
        let manufacturer = DBusValue.dictionary(
            keySignature: "q", valueSignature: "v",
            [DBusDictionaryEntry(key: .uint16(0x004C), value: .variant(.array(elementSignature: "y", bytes.map { .byte($0) })))])
        return [
            .string(BlueZDeviceTable.deviceInterface),
            .dictionary(
                keySignature: "s", valueSignature: "v",
                [
                    DBusDictionaryEntry(key: .string("RSSI"), value: .variant(.int16(rssi))),
                    DBusDictionaryEntry(key: .string("ManufacturerData"), value: .variant(manufacturer)),
                ]),
            .array(elementSignature: "s", []),
        ]
    }

    /// An iBeacon frame as the decoder gives `ay` (one array) is read as the
    /// per-byte form is; data longer than any advertisement is odd, not parsed.
    @Test func advertisementDataBeyond255BytesIsOdd() {
        var table = BlueZDeviceTable()
        let frame: [UInt8] = [0x02, 0x15] + [UInt8](repeating: 0xB9, count: 16) + [0x00, 0x01, 0x00, 0x02, 0xC5]
        func update(_ bytes: [UInt8]) -> [DBusValue] {
            let manufacturer = DBusValue.dictionary(
                keySignature: "q", valueSignature: "v", [DBusDictionaryEntry(key: .uint16(0x004C), value: .variant(.bytes(bytes)))])
            return [
                .string(BlueZDeviceTable.deviceInterface),
                .dictionary(
                    keySignature: "s", valueSignature: "v",
                    [
                        DBusDictionaryEntry(key: .string("RSSI"), value: .variant(.int16(-60))),
                        DBusDictionaryEntry(key: .string("ManufacturerData"), value: .variant(manufacturer)),
                    ]),
                .array(elementSignature: "s", []),
            ]
        }
        #expect(!table.propertiesChanged(path: "/org/bluez/hci0/dev_01", arguments: update(frame)).isEmpty)
        let odd = table.oddPayloadCount
        _ = table.propertiesChanged(path: "/org/bluez/hci0/dev_02", arguments: update(frame + [UInt8](repeating: 0, count: 256)))
        #expect(table.oddPayloadCount == odd + 1)
        #expect(DBusValue.bytes([1, 2]).bytes == [1, 2] && DBusValue.bytes([1, 2]).signature == "ay")
        #expect(DBusValue.array(elementSignature: "y", [.byte(1), .byte(2)]).bytes == [1, 2])
    }

    @Test func tenThousandRotatingAddressesLeaveTheTableFlat() {
        var table = BlueZDeviceTable()
        var largest = 0
        // A device a millisecond-ish apart, each a new address: 100 s of a busy street.
        for index in 0..<10_000 {
            table.now = Double(index) * 0.01
            let path = "/org/bluez/hci0/dev_\(String(format: "%012X", index))"
            let observations = table.propertiesChanged(path: path, arguments: advertisement(rssi: -80, appleData: [0x12, 0x02, 0x00, 0x00]))
            #expect(observations.isEmpty, "not an iBeacon frame: nothing to range")
            if index % 250 == 0 { table.forgetDevices(unseenFor: 10) }
            largest = max(largest, table.deviceCount)
        }
        #expect(largest <= 1_300, "\(largest) devices at most")
        #expect(table.advertisementsWithoutBeacon == 10_000)
        table.now += 11
        table.forgetDevices(unseenFor: 10)
        #expect(table.deviceCount == 0)
    }

    /// PropertiesChanged(Device1, {RSSI: n}): what bluetoothd sends when the advertised data did not change.
    func rssiOnly(_ rssi: Int16) -> [DBusValue] {
        [
            .string(BlueZDeviceTable.deviceInterface),
            .dictionary(keySignature: "s", valueSignature: "v", [DBusDictionaryEntry(key: .string("RSSI"), value: .variant(.int16(rssi)))]),
            .array(elementSignature: "s", []),
        ]
    }

    /// The crossing's iBeacon (B9407F30-…, major 1, minor 2) and another venue's (major 7).
    let crossingBeacon = bytes("02 15 B9 40 7F 30 F5 F8 46 6E AF F9 25 55 6B 57 FE 6D 00 01 00 02 C5")
    let otherVenueBeacon = bytes("02 15 B9 40 7F 30 F5 F8 46 6E AF F9 25 55 6B 57 FE 6D 00 07 00 02 C5")
    let crossing = BeaconRegion(
        name: "crossing", pattern: .iBeacon(uuid: UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!, major: 1, minor: nil))

    @Test func aWatchedBeaconReturningWithRSSIOnlyIsSeenAfterALongSilence() {
        var table = BlueZDeviceTable(regions: [crossing])
        let beacon = "/org/bluez/hci0/dev_C0_FF_EE_00_00_01"
        let phone = "/org/bluez/hci0/dev_C0_FF_EE_00_00_02"
        #expect(table.propertiesChanged(path: beacon, arguments: advertisement(rssi: -70, appleData: crossingBeacon)).count == 1)
        _ = table.propertiesChanged(path: phone, arguments: advertisement(rssi: -70, appleData: [0x10, 0x05, 0x01]))
        // The walker leaves for longer than the regions' exit timeout (10 s), less than bluetoothd keeps it.
        table.now = 25
        let forgotten1 = table.forgetDevices(unseenFor: 10, beaconsUnseenFor: BlueZScanner.beaconMemory)
        #expect(forgotten1 == 1, "the phone goes, the beacon stays")
        // bluetoothd still has the device, so its return is RSSI alone.
        let back = table.propertiesChanged(path: beacon, arguments: rssiOnly(-60))
        guard case .advertisement(_, let frames, let rssi, _)? = back.first else {
            Issue.record("the returning beacon was not seen: \(back)")
            return
        }
        #expect(rssi == -60)
        #expect(frames.map(\.identity) == [.iBeacon(uuid: UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!, major: 1, minor: 2)])
        #expect(BlueZScanner.beaconMemory > 30, "longer than bluetoothd's TemporaryTimeout")
        // Past the beacon memory, it goes too.
        table.now = 25 + BlueZScanner.beaconMemory + 1
        let forgotten2 = table.forgetDevices(unseenFor: 10, beaconsUnseenFor: BlueZScanner.beaconMemory)
        #expect(forgotten2 == 1)
        #expect(table.deviceCount == 0)
    }

    @Test func rssiOnlyUpdatesOfDevicesWithNoBeaconThatMattersAreSetAside() {
        var table = BlueZDeviceTable(regions: [crossing])
        let walker = "/org/bluez/hci0/dev_01"
        let venue = "/org/bluez/hci0/dev_02"
        let phone = "/org/bluez/hci0/dev_03"
        let unknown = "/org/bluez/hci0/dev_04"
        _ = table.propertiesChanged(path: walker, arguments: advertisement(rssi: -70, appleData: crossingBeacon))
        _ = table.propertiesChanged(path: venue, arguments: advertisement(rssi: -70, appleData: otherVenueBeacon))
        _ = table.propertiesChanged(path: phone, arguments: advertisement(rssi: -70, appleData: [0x10, 0x05, 0x01]))
        let setAside3 = table.setAside(path: walker, changing: ["RSSI"])
        #expect(!setAside3, "the region's beacon is always read")
        let setAside4 = table.setAside(path: venue, changing: ["RSSI"])
        #expect(setAside4, "another venue's beacon")
        let setAside5 = table.setAside(path: phone, changing: ["RSSI", "TxPower"])
        #expect(setAside5, "a phone")
        let setAside6 = table.setAside(path: phone, changing: ["RSSI", "ManufacturerData"])
        #expect(!setAside6, "new data is always read")
        let setAside7 = table.setAside(path: phone, changing: ["ServiceData"])
        #expect(!setAside7, "new data is always read")
        let setAside8 = table.setAside(path: unknown, changing: ["RSSI"])
        #expect(!setAside8, "a device never read is read once")
        #expect(table.setAsideCount == 2)
        // The phone starts advertising the crossing's beacon: from then on it is read.
        _ = table.propertiesChanged(path: phone, arguments: advertisement(rssi: -70, appleData: crossingBeacon))
        let setAside9 = table.setAside(path: phone, changing: ["RSSI"])
        #expect(!setAside9)
        // Without regions every beacon matters, and only devices without one are set aside.
        var everyBeacon = BlueZDeviceTable()
        _ = everyBeacon.propertiesChanged(path: venue, arguments: advertisement(rssi: -70, appleData: otherVenueBeacon))
        _ = everyBeacon.propertiesChanged(path: phone, arguments: advertisement(rssi: -70, appleData: [0x10, 0x05, 0x01]))
        let setAside10 = everyBeacon.setAside(path: venue, changing: ["RSSI"])
        #expect(!setAside10)
        let setAside11 = everyBeacon.setAside(path: phone, changing: ["RSSI"])
        #expect(setAside11)
    }

    @Test func aSetAsideDeviceCountsAsSeen() {
        var table = BlueZDeviceTable(regions: [crossing])
        let phone = "/org/bluez/hci0/dev_03"
        _ = table.propertiesChanged(path: phone, arguments: advertisement(rssi: -70, appleData: [0x10, 0x05, 0x01]))
        for second in 1...30 {
            table.now = Double(second)
            let setAside12 = table.setAside(path: phone, changing: ["RSSI"])
            #expect(setAside12)
            table.forgetDevices(unseenFor: 10)
        }
        #expect(table.deviceCount == 1, "still advertising: not forgotten")
    }
}

/// The discovery filter asks bluetoothd for less when the regions allow it.
@Suite("BlueZ discovery filter")
struct BlueZDiscoveryFilterTests {
    func uuids(_ filter: DBusValue) -> [String]? {
        filter.stringKeyed?["UUIDs"]?.unwrapped.items?.compactMap(\.string)
    }

    @Test func eddystoneOnlyRegionsAskForEddystoneAlone() {
        let eddystone = BeaconRegion(name: "stop", pattern: .eddystone(namespace: Array(repeating: 0xE7, count: 10), instance: nil))
        let iBeacon = BeaconRegion(
            name: "crossing", pattern: .iBeacon(uuid: UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!, major: 1, minor: nil))
        #expect(uuids(BlueZScanner.discoveryFilter(for: [eddystone])) == ["0000feaa-0000-1000-8000-00805f9b34fb"])
        #expect(uuids(BlueZScanner.discoveryFilter(for: [eddystone, iBeacon])) == nil, "an iBeacon names no service")
        #expect(uuids(BlueZScanner.discoveryFilter(for: [])) == nil, "no regions: every beacon")
        let filter = BlueZScanner.discoveryFilter(for: [eddystone]).stringKeyed
        #expect(filter?["RSSI"]?.unwrapped == .int16(-127))
        #expect(filter?["DuplicateData"]?.unwrapped == .boolean(true))
        #expect(filter?["Transport"]?.unwrapped == .string("le"))
    }
}
