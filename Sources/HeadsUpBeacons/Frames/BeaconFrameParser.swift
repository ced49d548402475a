import FoundationEssentials

/// Decodes beacon frames from what BlueZ reports for a device: its
/// `ManufacturerData` (company id → bytes after the id) and `ServiceData`
/// (128-bit UUID string → bytes). Pure functions: arbitrary bytes in, frames
/// or `nil` out, never a trap (they are fuzzed).
public enum BeaconFrameParser {
    public static let appleCompanyID: UInt16 = 0x004C
    public static let eddystoneServiceUUID = "0000feaa-0000-1000-8000-00805f9b34fb"

    /// Every beacon frame in one device's advertisement data.
    public static func frames(manufacturerData: [UInt16: [UInt8]], serviceData: [String: [UInt8]]) -> [BeaconFrame] {
        var frames: [BeaconFrame] = []
        for (company, bytes) in manufacturerData.sorted(by: { $0.key < $1.key }) {
            if company == appleCompanyID, let frame = iBeacon(bytes) { frames.append(frame) }
            if let frame = altBeacon(bytes) { frames.append(frame) }
        }
        if let bytes = serviceData[eddystoneServiceUUID] ?? serviceData[eddystoneServiceUUID.uppercased()],
            let frame = eddystoneUID(bytes)
        {
            frames.append(frame)
        }
        return frames
    }

    /// iBeacon: `02 15` + UUID (16) + major (BE 16) + minor (BE 16) + measured power (int8).
    public static func iBeacon(_ bytes: [UInt8]) -> BeaconFrame? {
        guard bytes.count >= 23, bytes[0] == 0x02, bytes[1] == 0x15 else { return nil }
        let uuid = UUIDBytes.uuid(Array(bytes[2..<18]))
        let major = UInt16(bytes[18]) << 8 | UInt16(bytes[19])
        let minor = UInt16(bytes[20]) << 8 | UInt16(bytes[21])
        return BeaconFrame(identity: .iBeacon(uuid: uuid, major: major, minor: minor), measuredPower: Int(Int8(bitPattern: bytes[22])))
    }

    /// AltBeacon: `BE AC` + id (20) + reference RSSI (int8) + reserved, under any company id.
    public static func altBeacon(_ bytes: [UInt8]) -> BeaconFrame? {
        guard bytes.count >= 24, bytes[0] == 0xBE, bytes[1] == 0xAC else { return nil }
        return BeaconFrame(identity: .altBeacon(id: Array(bytes[2..<22])), measuredPower: Int(Int8(bitPattern: bytes[22])))
    }

    /// Eddystone-UID: frame type 0x00, TX power at 0 m, namespace (10), instance (6).
    public static func eddystoneUID(_ bytes: [UInt8]) -> BeaconFrame? {
        guard bytes.count >= 18, bytes[0] == 0x00 else { return nil }
        let powerAt0m = Int(Int8(bitPattern: bytes[1]))
        return BeaconFrame(
            identity: .eddystone(namespace: Array(bytes[2..<12]), instance: Array(bytes[12..<18])),
            measuredPower: powerAt0m - 41)
    }

    /// Eddystone-URL and -TLM frames, for display.
    public static func eddystoneInfo(_ bytes: [UInt8]) -> EddystoneInfo? {
        guard let type = bytes.first else { return nil }
        switch type {
        case 0x10:
            guard bytes.count >= 3, let url = eddystoneURL(scheme: bytes[2], encoded: bytes[3...]) else { return nil }
            return .url(url, txPowerAt0m: Int(Int8(bitPattern: bytes[1])))
        case 0x20:
            guard bytes.count >= 14, bytes[1] == 0x00 else { return nil }
            let battery = Int(bytes[2]) << 8 | Int(bytes[3])
            let rawTemperature = Int16(bitPattern: UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
            let count = bytes[6..<10].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            let tenths = bytes[10..<14].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            return .telemetry(
                EddystoneTelemetry(
                    batteryMillivolts: battery == 0 ? nil : battery,
                    temperature: rawTemperature == Int16.min ? nil : Double(rawTemperature) / 256,
                    advertisementCount: count, uptime: Double(tenths) / 10))
        default:
            return nil
        }
    }

    static let urlSchemes = ["http://www.", "https://www.", "http://", "https://"]
    static let urlExpansions = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/", ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]

    static func eddystoneURL(scheme: UInt8, encoded: ArraySlice<UInt8>) -> String? {
        guard Int(scheme) < urlSchemes.count else { return nil }
        var url = urlSchemes[Int(scheme)]
        for byte in encoded {
            if Int(byte) < urlExpansions.count {
                url += urlExpansions[Int(byte)]
            } else if (0x21...0x7E).contains(byte) {
                url.append(Character(Unicode.Scalar(byte)))
            } else {
                return nil
            }
        }
        return url
    }
}

/// 16 bytes ↔ Foundation UUID.
enum UUIDBytes {
    static func uuid(_ b: [UInt8]) -> UUID {
        UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }
}
