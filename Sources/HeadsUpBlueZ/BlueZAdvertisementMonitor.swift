import FoundationEssentials
import HeadsUpBeacons
import HeadsUpDBus

/// The advertisement monitor HeadsUp registers with bluetoothd
/// (org.bluez.AdvertisementMonitor1, type "or_patterns"): bluetoothd then
/// scans passively and reports only devices whose advertising data matches
/// one of the patterns, and with controller offload (MSFT/AOSP extensions)
/// the controller itself drops the street's phones and earbuds. Pure: the
/// object tree bluetoothd reads and what each of its calls means; the
/// scanner owns the bus.
///
/// No RSSI thresholds are set: bluetoothd would then hold back weak
/// readings, and the regions' own enter/exit logic is made of them.
public struct BlueZAdvertisementMonitor: Sendable, Equatable {
    public static let interface = "org.bluez.AdvertisementMonitor1"
    public static let managerInterface = "org.bluez.AdvertisementMonitorManager1"
    public static let monitorType = "or_patterns"

    /// One or-pattern: AD structures of type `adType` whose data holds
    /// `content` at byte `start` (BlueZ's (yyay)).
    public struct Pattern: Sendable, Equatable, Hashable {
        public var start: UInt8
        public var adType: UInt8
        public var content: [UInt8]

        public init(start: UInt8, adType: UInt8, content: [UInt8]) {
            self.start = start
            self.adType = adType
            self.content = content
        }

        /// Whether an AD structure of `adType` with `data` (the bytes after
        /// its type) matches, as bluetoothd and the controllers judge it.
        public func matches(adType: UInt8, data: [UInt8]) -> Bool {
            adType == self.adType && data.count >= Int(start) + content.count
                && data[Int(start)..<Int(start) + content.count].elementsEqual(content)
        }

        /// `(yyay)`.
        public var value: DBusValue {
            .structure([.byte(start), .byte(adType), .array(elementSignature: "y", content.map(DBusValue.byte))])
        }
    }

    /// What a call from bluetoothd means for the scanner.
    public enum Event: Sendable, Equatable {
        /// The monitor is in use: advertisements of matching devices will follow.
        case activated
        /// bluetoothd gave the monitor up (it cannot keep it): scan another way.
        case released
        case deviceFound(path: String)
        case deviceLost(path: String)
    }

    /// AD types (Bluetooth Core Supplement, part A, 1.4 and 1.11).
    static let manufacturerData: UInt8 = 0xFF
    static let serviceData16: UInt8 = 0x16
    /// An AD structure holds at most 31 bytes with its length and type.
    static let maximumContent = 29

    /// The application root bluetoothd reads with GetManagedObjects.
    public let root: String
    public let patterns: [Pattern]
    public var monitorPath: String { root + "/monitor0" }

    public init(root: String, regions: [BeaconRegion]) {
        self.root = root
        self.patterns = Self.patterns(for: regions)
    }

    /// The or-patterns for `regions` (no regions: every beacon kind):
    /// iBeacon: manufacturer data 4C 00 02 15 and the region's UUID;
    /// AltBeacon: BE AC at offset 2 (after any company id) and the id
    /// prefix; Eddystone: service data AA FE 00 (the UUID 0xFEAA, little
    /// endian, and the UID frame). Duplicates are dropped, order kept.
    public static func patterns(for regions: [BeaconRegion]) -> [Pattern] {
        var result: [Pattern] = []
        func add(_ pattern: Pattern) {
            var pattern = pattern
            pattern.content = Array(pattern.content.prefix(maximumContent - Int(pattern.start)))
            if !result.contains(pattern) { result.append(pattern) }
        }
        let iBeaconPrefix: [UInt8] = [0x4C, 0x00, 0x02, 0x15]
        let altBeaconCode: [UInt8] = [0xBE, 0xAC]
        let eddystoneUID: [UInt8] = [0xAA, 0xFE, 0x00]
        if regions.isEmpty {
            add(Pattern(start: 0, adType: manufacturerData, content: iBeaconPrefix))
            add(Pattern(start: 2, adType: manufacturerData, content: altBeaconCode))
            add(Pattern(start: 0, adType: serviceData16, content: eddystoneUID))
        }
        for region in regions {
            switch region.pattern {
            case .iBeacon(let uuid, _, _):
                add(Pattern(start: 0, adType: manufacturerData, content: iBeaconPrefix + withUnsafeBytes(of: uuid.uuid) { Array($0) }))
            case .altBeacon(let prefix):
                add(Pattern(start: 2, adType: manufacturerData, content: altBeaconCode + prefix))
            case .eddystone:
                add(Pattern(start: 0, adType: serviceData16, content: eddystoneUID))
            case .mapped:
                break  // a mapped place has no advertisement
            }
        }
        return result
    }

    /// The objects bluetoothd reads: the monitor under the root.
    public var objectTree: DBusObjectTree {
        var tree = DBusObjectTree(root: root)
        tree.set(
            path: monitorPath, interface: Self.interface,
            properties: [
                "Type": .string(Self.monitorType),
                "Patterns": .array(elementSignature: "(yyay)", patterns.map(\.value)),
            ])
        return tree
    }

    /// Answers a call to the exported tree; the event says what it meant.
    public func answer(_ call: DBusMethodCall) -> (DBusMethodOutcome, Event?) {
        guard call.path == monitorPath, call.interface == Self.interface else { return (objectTree.answer(call), nil) }
        switch call.member {
        case "Activate": return (.reply([]), .activated)
        case "Release": return (.reply([]), .released)
        case "DeviceFound", "DeviceLost":
            guard call.arguments.count == 1, case .objectPath(let device) = call.arguments[0] else {
                return (DBusObjectTree.invalidArguments(call, expected: "o"), nil)
            }
            return (.reply([]), call.member == "DeviceFound" ? .deviceFound(path: device) : .deviceLost(path: device))
        default:
            return (.notHandled, nil)
        }
    }
}
