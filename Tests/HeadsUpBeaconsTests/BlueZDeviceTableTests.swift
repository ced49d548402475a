import Foundation
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
}
