import FoundationEssentials

/// What a beacon says it is: the key regions match on. Never the Bluetooth
/// address, which phones and many beacons rotate.
public enum BeaconIdentity: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// Apple iBeacon: proximity UUID, major, minor.
    case iBeacon(uuid: UUID, major: UInt16, minor: UInt16)
    /// AltBeacon: a 20-byte identifier (commonly UUID + major + minor).
    case altBeacon(id: [UInt8])
    /// Eddystone-UID: 10-byte namespace, 6-byte instance.
    case eddystone(namespace: [UInt8], instance: [UInt8])
    /// Not a radio beacon: a place from a map (`osm:node/ID`) and its kind
    /// (`marked`, …), so a mapped crossing travels through the same region
    /// events, warnings and sinks as a beacon. BlueZ never reports one.
    case mapped(place: String, kind: String)

    public var description: String {
        switch self {
        case .iBeacon(let uuid, let major, let minor): "ibeacon:\(uuid.uuidString):\(major):\(minor)"
        case .altBeacon(let id): "altbeacon:\(id.hexString)"
        case .eddystone(let namespace, let instance): "eddystone:\(namespace.hexString):\(instance.hexString)"
        case .mapped(let place, let kind): "\(place) (\(kind))"
        }
    }

    /// Kind first (AltBeacon, Eddystone, iBeacon, as their descriptions
    /// sort), then the identifier's bytes, without making strings.
    public static func < (lhs: BeaconIdentity, rhs: BeaconIdentity) -> Bool {
        switch (lhs, rhs) {
        case (.iBeacon(let a, let aMajor, let aMinor), .iBeacon(let b, let bMajor, let bMinor)):
            let (x, y) = (withUnsafeBytes(of: a.uuid) { Array($0) }, withUnsafeBytes(of: b.uuid) { Array($0) })
            if x != y { return x.lexicographicallyPrecedes(y) }
            return (aMajor, aMinor) < (bMajor, bMinor)
        case (.altBeacon(let a), .altBeacon(let b)):
            return a.lexicographicallyPrecedes(b)
        case (.eddystone(let aNamespace, let aInstance), .eddystone(let bNamespace, let bInstance)):
            return aNamespace != bNamespace ? aNamespace.lexicographicallyPrecedes(bNamespace) : aInstance.lexicographicallyPrecedes(bInstance)
        case (.mapped(let a, let aKind), .mapped(let b, let bKind)):
            return (a, aKind) < (b, bKind)
        default:
            return lhs.kindOrder < rhs.kindOrder
        }
    }

    private var kindOrder: Int {
        switch self {
        case .altBeacon: 0
        case .eddystone: 1
        case .iBeacon: 2
        case .mapped: 3
        }
    }
}

extension Array where Element == UInt8 {
    /// Lower-case hex, two digits a byte.
    var hexString: String {
        map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }

    /// Bytes from hex text ("0a1B…", optional dashes); `nil` if not hex.
    init?(hex text: String) {
        let digits = text.filter { $0 != "-" }
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        self = bytes
    }
}

extension BeaconIdentity {
    /// Parses the form ``description`` prints: `ibeacon:UUID:MAJOR:MINOR`,
    /// `altbeacon:HEX40`, `eddystone:HEX20:HEX12`.
    public init?(parsing text: String) {
        let parts = text.split(separator: ":").map(String.init)
        switch parts.first?.lowercased() {
        case "ibeacon":
            guard parts.count == 4, let uuid = UUID(uuidString: parts[1]), let major = UInt16(parts[2]), let minor = UInt16(parts[3]) else {
                return nil
            }
            self = .iBeacon(uuid: uuid, major: major, minor: minor)
        case "altbeacon":
            guard parts.count == 2, let id = [UInt8](hex: parts[1]), id.count == 20 else { return nil }
            self = .altBeacon(id: id)
        case "eddystone":
            guard parts.count == 3, let namespace = [UInt8](hex: parts[1]), namespace.count == 10,
                let instance = [UInt8](hex: parts[2]), instance.count == 6
            else { return nil }
            self = .eddystone(namespace: namespace, instance: instance)
        default:
            return nil
        }
    }
}
