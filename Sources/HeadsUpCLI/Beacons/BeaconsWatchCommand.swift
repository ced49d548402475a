import ArgumentParser
import Foundation
import HeadsUpBeacons

/// `headsup beacons watch`: region enter/exit and proximity events as they happen.
struct BeaconsWatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print region events (enter, exit, proximity changes) as they happen.",
        discussion: """
            Regions: UUID[:major[:minor]] (iBeacon), eddystone:NAMESPACE[:INSTANCE], altbeacon:HEXPREFIX; \
            prefix NAME= to name one. Times are seconds since the command started.
            """)

    @Option(name: .customLong("region"), help: "A region to watch (repeatable).")
    var regionSpecs: [String] = []

    @OptionGroup var options: BeaconScanOptions

    @Flag(help: "One JSON object per event.")
    var json = false

    func validate() throws {
        guard !regionSpecs.isEmpty else { throw ValidationError("give at least one --region") }
        for spec in regionSpecs {
            do { _ = try BeaconRegion.parse(spec) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        let regions = try regionSpecs.map { spec in
            do { return try BeaconRegion.parse(spec) } catch { throw ValidationError("\(error)") }
        }
        try BeaconLoop(options: options, regions: regions, json: json).run { _, events, origin in
            for event in events {
                if json {
                    print(JSONLine.encode(BeaconJSON.event(event, since: origin)))
                } else {
                    print(Self.text(event, since: origin))
                }
            }
            if !events.isEmpty { fflush(nil) }
        }
    }

    static func text(_ event: RegionEvent, since origin: Double) -> String {
        let time = String(format: "%8.2f s", event.time - origin)
        switch event {
        case .entered(let region, let beacon, _):
            return "\(time)  ENTER \(region.name)  via \(beacon.identity)  rssi \(beacon.rssi) (smoothed \(String(format: "%.1f", beacon.smoothedRSSI))), \(beacon.proximity.rawValue)"
        case .exited(let region, let beacon, _, let reason):
            return "\(time)  EXIT  \(region.name)  via \(beacon)  (\(reason.rawValue))"
        case .proximityChanged(let beacon, let from, _):
            return "\(time)  \(beacon.identity): \(from.rawValue) → \(beacon.proximity.rawValue)"
        }
    }
}
