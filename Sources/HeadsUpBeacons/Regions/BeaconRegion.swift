import FoundationEssentials
import HeadsUpData

/// A place marked by beacons: every beacon whose identity matches the
/// pattern belongs to it. Missing parts are wildcards, as in iOS
/// CoreLocation (UUID[:major[:minor]]) and the AltBeacon library.
public struct BeaconRegion: Hashable, Sendable, CustomStringConvertible {
    public enum Pattern: Hashable, Sendable {
        case iBeacon(uuid: UUID, major: UInt16?, minor: UInt16?)
        case eddystone(namespace: [UInt8], instance: [UInt8]?)
        /// Matches AltBeacons whose id starts with these bytes.
        case altBeacon(idPrefix: [UInt8])
        /// A place from a map (`osm:node/ID`): matches only that place's
        /// ``BeaconIdentity/mapped(place:kind:)``; `parse` never makes one,
        /// so `beacons.regions` cannot name it.
        case mapped(place: String)
    }

    public var name: String
    public var pattern: Pattern

    public init(name: String, pattern: Pattern) {
        self.name = name
        self.pattern = pattern
    }

    public func matches(_ identity: BeaconIdentity) -> Bool {
        switch (pattern, identity) {
        case (.iBeacon(let uuid, let major, let minor), .iBeacon(let beaconUUID, let beaconMajor, let beaconMinor)):
            return uuid == beaconUUID && (major == nil || major == beaconMajor) && (minor == nil || minor == beaconMinor)
        case (.eddystone(let namespace, let instance), .eddystone(let beaconNamespace, let beaconInstance)):
            return namespace == beaconNamespace && (instance == nil || instance == beaconInstance)
        case (.altBeacon(let prefix), .altBeacon(let id)):
            return id.starts(with: prefix)
        case (.mapped(let place), .mapped(let identityPlace, _)):
            return place == identityPlace
        default:
            return false
        }
    }

    /// The region as a spec `parse` reads back: `NAME=PATTERN`.
    public var spec: String { "\(name)=\(patternSpec)" }

    public var description: String {
        name == patternSpec ? patternSpec : "\(name) (\(patternSpec))"
    }

    private var patternSpec: String {
        let spec: String
        switch pattern {
        case .iBeacon(let uuid, let major, let minor):
            spec = ([uuid.uuidString] + [major, minor].compactMap { $0.map(String.init) }).joined(separator: ":")
        case .eddystone(let namespace, let instance):
            spec = "eddystone:" + namespace.hexString + (instance.map { ":" + $0.hexString } ?? "")
        case .altBeacon(let prefix):
            spec = "altbeacon:" + prefix.hexString
        case .mapped(let place):
            spec = place
        }
        return spec
    }

    /// A region spec as users write it: `UUID[:major[:minor]]` (iBeacon;
    /// also with an `ibeacon:` prefix), `eddystone:NAMESPACE[:INSTANCE]`
    /// (20 and 12 hex digits), `altbeacon:HEXPREFIX`. An optional
    /// `name=` in front names the region.
    public static func parse(_ text: String) throws(RegionSpecError) -> BeaconRegion {
        var spec = text.trimmingWhitespace
        var name: String?
        if let equals = spec.firstIndex(of: "=") {
            name = String(spec[..<equals])
            spec = String(spec[spec.index(after: equals)...])
        }
        var parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let kind = parts.first?.lowercased()
        let pattern: Pattern
        switch kind {
        case "eddystone":
            parts.removeFirst()
            guard (1...2).contains(parts.count), let namespace = [UInt8](hex: parts[0]), namespace.count == 10 else {
                throw RegionSpecError(spec: text, reason: "Eddystone regions are eddystone:NAMESPACE[:INSTANCE] with a 20-hex-digit namespace")
            }
            var instance: [UInt8]?
            if parts.count == 2 {
                guard let bytes = [UInt8](hex: parts[1]), bytes.count == 6 else {
                    throw RegionSpecError(spec: text, reason: "an Eddystone instance has 12 hex digits")
                }
                instance = bytes
            }
            pattern = .eddystone(namespace: namespace, instance: instance)
        case "altbeacon":
            parts.removeFirst()
            guard parts.count == 1, let prefix = [UInt8](hex: parts[0]), (1...20).contains(prefix.count) else {
                throw RegionSpecError(spec: text, reason: "AltBeacon regions are altbeacon:HEX with 1 to 20 bytes of id prefix")
            }
            pattern = .altBeacon(idPrefix: prefix)
        default:
            if kind == "ibeacon" { parts.removeFirst() }
            guard (1...3).contains(parts.count), let uuid = UUID(uuidString: parts[0]) else {
                throw RegionSpecError(spec: text, reason: "iBeacon regions are UUID[:major[:minor]], e.g. B9407F30-F5F8-466E-AFF9-25556B57FE6D:1")
            }
            var numbers: [UInt16] = []
            for part in parts.dropFirst() {
                guard let number = UInt16(part) else {
                    throw RegionSpecError(spec: text, reason: "major and minor are numbers from 0 to 65535, not '\(part)'")
                }
                numbers.append(number)
            }
            pattern = .iBeacon(uuid: uuid, major: numbers.first, minor: numbers.count > 1 ? numbers[1] : nil)
        }
        var region = BeaconRegion(name: "", pattern: pattern)
        region.name = name ?? region.description
        return region
    }
}

/// A region spec that cannot be understood.
public struct RegionSpecError: Error, CustomStringConvertible {
    public var spec: String
    public var reason: String
    public var description: String { "region '\(spec)': \(reason)" }
}
