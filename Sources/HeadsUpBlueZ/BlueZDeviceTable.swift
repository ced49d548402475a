import HeadsUpBeacons
import HeadsUpDBus

/// What one BlueZ object update means for beacon ranging.
public enum BlueZObservation: Equatable, Sendable {
    /// A device advertised: its beacon frames and the RSSI of this advertisement.
    case advertisement(path: String, frames: [BeaconFrame], rssi: Int, address: String?)
    /// A device object went away (bluetoothd forgets silent devices after 30 s).
    case deviceRemoved(path: String)
    /// An adapter appeared or changed power.
    case adapter(path: String, powered: Bool)
    case adapterRemoved(path: String)
}

/// BlueZ's object tree as far as beacons care: adapters and the cached
/// properties of each device, updated from InterfacesAdded,
/// PropertiesChanged and InterfacesRemoved payloads. Pure: D-Bus values in,
/// observations out. Payloads of the wrong shape are counted and ignored,
/// never trusted.
public struct BlueZDeviceTable: Sendable {
    public static let deviceInterface = "org.bluez.Device1"
    public static let adapterInterface = "org.bluez.Adapter1"

    struct Device: Sendable {
        /// When an update last arrived (``now`` at the time).
        var lastSeen: Double = 0
        var address: String?
        var rssi: Int?
        var manufacturerData: [UInt16: [UInt8]] = [:]
        var serviceData: [String: [UInt8]] = [:]
        /// Whether the cached data holds a beacon that matters (in a region,
        /// or any beacon when no regions were given): what decides whether
        /// an RSSI-only update of this device is set aside undecoded.
        var matters = false
        /// The beacon frames of the cached data, parsed when it changes: an
        /// RSSI-only update reuses them.
        var frames: [BeaconFrame] = []
    }

    /// The properties that carry advertised data; an update naming none of
    /// them only moves RSSI (or TxPower) of what the device advertised before.
    public static let payloadProperties: Set<String> = ["ManufacturerData", "ServiceData"]

    /// The regions whose beacons matter; empty: every beacon does.
    public let regions: [BeaconRegion]

    private(set) var devices: [String: Device] = [:]
    public private(set) var adapters: [String: Bool] = [:]
    /// Properties or payloads ignored because they had an unexpected shape.
    public private(set) var oddPayloadCount = 0
    /// Advertisements that carried no beacon frame (phones, earbuds, …): counted, nothing more.
    public private(set) var advertisementsWithoutBeacon = 0
    /// Updates set aside by `setAside` without being decoded.
    public private(set) var setAsideCount = 0
    /// The caller's clock reading for the updates it applies next (the table itself reads no clock).
    public var now: Double = 0

    /// Devices known now.
    public var deviceCount: Int { devices.count }

    /// Forgets devices with no update for `seconds`: addresses rotate, and
    /// bluetoothd does not always remove what stopped advertising. Devices
    /// whose data holds a beacon that matters are kept `beaconSeconds` (at
    /// least `seconds`): they are few, and one that returns with RSSI-only
    /// updates is recognised only by the data kept here.
    @discardableResult
    public mutating func forgetDevices(unseenFor seconds: Double, beaconsUnseenFor beaconSeconds: Double? = nil) -> Int {
        let before = devices.count
        let beaconLimit = max(seconds, beaconSeconds ?? seconds)
        devices = devices.filter { now - $0.value.lastSeen <= ($0.value.matters ? beaconLimit : seconds) }
        return before - devices.count
    }

    public init(regions: [BeaconRegion] = []) {
        self.regions = regions
    }

    /// Whether an update of `path` naming the properties `names` can be
    /// dropped before its values are decoded: it carries no advertised data
    /// (RSSI alone, as bluetoothd sends for a payload that did not change),
    /// and the device is known with cached data that holds no beacon that
    /// matters. A device is set aside only after one decoded update, so an
    /// unknown path is always read. The device counts as seen, so it is not
    /// forgotten while it advertises.
    public mutating func setAside(path: String, changing names: [String]) -> Bool {
        guard devices[path]?.matters == false, !names.contains(where: Self.payloadProperties.contains) else { return false }
        devices[path]?.lastSeen = now
        setAsideCount += 1
        return true
    }

    /// Counts a payload rejected before it reached the table.
    public mutating func countOdd() { oddPayloadCount += 1 }

    /// Forgets everything (bluetoothd went away).
    public mutating func reset() {
        devices = [:]
        adapters = [:]
    }

    /// `InterfacesAdded(o, a{sa{sv}})` or one entry of GetManagedObjects.
    public mutating func interfacesAdded(path: String, interfaces: DBusValue) -> [BlueZObservation] {
        guard let byInterface = interfaces.stringKeyed else {
            oddPayloadCount += 1
            return []
        }
        var observations: [BlueZObservation] = []
        if let properties = byInterface[Self.adapterInterface] {
            let powered = properties.stringKeyed?["Powered"]?.bool ?? false
            adapters[path] = powered
            observations.append(.adapter(path: path, powered: powered))
        }
        if let properties = byInterface[Self.deviceInterface] {
            devices[path] = devices[path] ?? Device()
            observations += update(device: path, changed: properties, invalidated: [])
        }
        return observations
    }

    /// `PropertiesChanged(s, a{sv}, as)` on `path`.
    public mutating func propertiesChanged(path: String, arguments: [DBusValue]) -> [BlueZObservation] {
        guard arguments.count >= 2, let interface = arguments[0].string, arguments[1].stringKeyed != nil else {
            oddPayloadCount += 1
            return []
        }
        let invalidated = arguments.count > 2 ? (arguments[2].items?.compactMap(\.string) ?? []) : []
        switch interface {
        case Self.deviceInterface:
            if devices[path] == nil { devices[path] = Device() }
            return update(device: path, changed: arguments[1], invalidated: invalidated)
        case Self.adapterInterface:
            guard let powered = arguments[1].stringKeyed?["Powered"] else { return [] }
            guard let value = powered.bool else {
                oddPayloadCount += 1
                return []
            }
            adapters[path] = value
            return [.adapter(path: path, powered: value)]
        default:
            return []
        }
    }

    /// `InterfacesRemoved(o, as)`.
    public mutating func interfacesRemoved(path: String, interfaces: DBusValue) -> [BlueZObservation] {
        guard let names = interfaces.items?.compactMap(\.string) else {
            oddPayloadCount += 1
            return []
        }
        var observations: [BlueZObservation] = []
        if names.contains(Self.deviceInterface), devices.removeValue(forKey: path) != nil {
            observations.append(.deviceRemoved(path: path))
        }
        if names.contains(Self.adapterInterface), adapters.removeValue(forKey: path) != nil {
            observations.append(.adapterRemoved(path: path))
            let prefix = path + "/"
            for device in devices.keys where device.hasPrefix(prefix) {
                devices[device] = nil
                observations.append(.deviceRemoved(path: device))
            }
        }
        return observations
    }

    private mutating func update(device path: String, changed: DBusValue, invalidated: [String]) -> [BlueZObservation] {
        guard var device = devices[path], let properties = changed.stringKeyed else {
            oddPayloadCount += 1
            return []
        }
        var advertised = false
        var payloadChanged = false
        device.lastSeen = now
        for (name, value) in properties {
            switch name {
            case "Address":
                if let address = value.string { device.address = address } else { oddPayloadCount += 1 }
            case "RSSI":
                // Type n; anything else (or out of range) is ignored.
                if case .int16(let rssi) = value.unwrapped, rssi < 0 {
                    device.rssi = Int(rssi)
                    advertised = true
                } else {
                    oddPayloadCount += 1
                }
            case "ManufacturerData":
                if let parsed = Self.manufacturerData(value) {
                    device.manufacturerData = parsed
                    advertised = true
                    payloadChanged = true
                } else {
                    oddPayloadCount += 1
                }
            case "ServiceData":
                if let parsed = Self.serviceData(value) {
                    device.serviceData = parsed
                    advertised = true
                    payloadChanged = true
                } else {
                    oddPayloadCount += 1
                }
            default:
                break
            }
        }
        for name in invalidated {
            switch name {
            case "RSSI": device.rssi = nil
            case "ManufacturerData":
                device.manufacturerData = [:]
                payloadChanged = true
            case "ServiceData":
                device.serviceData = [:]
                payloadChanged = true
            default: break
            }
        }
        if payloadChanged {
            device.frames = BeaconFrameParser.frames(manufacturerData: device.manufacturerData, serviceData: device.serviceData)
            device.matters = device.frames.contains { frame in regions.isEmpty || regions.contains { $0.matches(frame.identity) } }
        }
        devices[path] = device
        guard advertised, let rssi = device.rssi else { return [] }
        let found = device.frames
        guard !found.isEmpty else {
            advertisementsWithoutBeacon += 1
            return []
        }
        return [.advertisement(path: path, frames: found, rssi: rssi, address: device.address)]
    }

    /// The most data one advertisement carries (Bluetooth 5's extended
    /// advertising PDU); anything longer is no advertisement, and is odd.
    public static let longestAdvertisementData = 255

    /// `a{qv}` with `ay` values.
    static func manufacturerData(_ value: DBusValue) -> [UInt16: [UInt8]]? {
        guard case .dictionary("q", "v", let entries) = value.unwrapped, entries.count <= longestAdvertisementData else { return nil }
        var result: [UInt16: [UInt8]] = [:]
        for entry in entries {
            guard case .uint16(let company) = entry.key, let bytes = entry.value.bytes, bytes.count <= longestAdvertisementData else { return nil }
            result[company] = bytes
        }
        return result
    }

    /// `a{sv}` with `ay` values, keyed by lower-cased 128-bit UUID strings.
    static func serviceData(_ value: DBusValue) -> [String: [UInt8]]? {
        guard case .dictionary("s", "v", let entries) = value.unwrapped, entries.count <= longestAdvertisementData else { return nil }
        var result: [String: [UInt8]] = [:]
        for entry in entries {
            guard let uuid = entry.key.string, let bytes = entry.value.bytes, bytes.count <= longestAdvertisementData else { return nil }
            result[uuid.lowercased()] = bytes
        }
        return result
    }
}
