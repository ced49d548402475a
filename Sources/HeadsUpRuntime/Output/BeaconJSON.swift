import Foundation
import HeadsUpBeacons

/// Beacon statuses and region events as JSON objects (see ``JSONLine``).
public enum BeaconJSON {
    public static func rounded(_ value: Double, _ places: Double = 1000) -> Double { (value * places).rounded() / places }

    public static func status(_ beacon: BeaconStatus, since origin: Double) -> [String: Any] {
        var object: [String: Any] = [
            "beacon": beacon.identity.description, "rssi": beacon.rssi, "smoothed_rssi": rounded(beacon.smoothedRSSI, 10),
            "proximity": beacon.proximity.rawValue, "last_seen": rounded(beacon.lastSeen - origin),
            "measured_power": beacon.measuredPower,
        ]
        if let distance = beacon.distance { object["distance"] = rounded(distance, 100) }
        if let address = beacon.address { object["address"] = address }
        return object
    }

    /// An event; "time" is seconds since the command started, "monotonic"
    /// the CLOCK_MONOTONIC reading, to line events up with other processes.
    public static func event(_ event: RegionEvent, since origin: Double) -> [String: Any] {
        var object = fields(event, since: origin)
        object["monotonic"] = rounded(event.time)
        return object
    }

    private static func fields(_ event: RegionEvent, since origin: Double) -> [String: Any] {
        switch event {
        case .entered(let region, let beacon, let time):
            return status(beacon, since: origin).merging(["event": "enter", "region": region.name, "time": rounded(time - origin)]) { $1 }
        case .exited(let region, let beacon, let time, let reason):
            return [
                "event": "exit", "region": region.name, "beacon": beacon.description, "time": rounded(time - origin),
                "reason": reason == .timeout ? "timeout" : "weak-signal",
            ]
        case .proximityChanged(let beacon, let from, let time):
            return status(beacon, since: origin).merging([
                "event": "proximity", "from": from.rawValue, "to": beacon.proximity.rawValue, "time": rounded(time - origin),
            ]) { $1 }
        }
    }
}

extension RegionEvent {
    /// One line for a person: time since `origin`, what happened, the evidence.
    public func text(since origin: Double) -> String {
        let stamp = String(format: "%8.2f s", time - origin)
        switch self {
        case .entered(let region, let beacon, _):
            return
                "\(stamp)  ENTER \(region.name)  via \(beacon.identity)  rssi \(beacon.rssi) (smoothed \(String(format: "%.1f", beacon.smoothedRSSI))), \(beacon.proximity.rawValue)"
        case .exited(let region, let beacon, _, let reason):
            return "\(stamp)  EXIT  \(region.name)  via \(beacon)  (\(reason.rawValue))"
        case .proximityChanged(let beacon, let from, _):
            return "\(stamp)  \(beacon.identity): \(from.rawValue) → \(beacon.proximity.rawValue)"
        }
    }
}
