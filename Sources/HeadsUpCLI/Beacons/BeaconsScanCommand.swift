import ArgumentParser
import Foundation
import Glibc
import HeadsUpBeacons
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpRuntime
import HeadsUpSystem

/// `headsup beacons scan`: a live table of the beacons in range.
struct BeaconsScanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Show beacons in range: identity, raw and smoothed RSSI, distance, proximity, last seen.",
        discussion: "On a terminal the table is redrawn every second; otherwise (or with --json) one JSON line per beacon per second.")

    @OptionGroup var options: BeaconScanOptions

    @Flag(help: "One JSON object per beacon per refresh.")
    var json = false

    func run() throws {
        let live = !json && isatty(STDOUT_FILENO) != 0
        var lastRefresh = -Double.infinity
        try BeaconLoop(options: options, regions: []).run { monitor, _, origin in
            let now = SystemMonotonicClock().now()
            guard now - lastRefresh >= 1 else { return }
            lastRefresh = now
            if json || !live {
                for beacon in monitor.beacons { print(JSONLine.encode(BeaconJSON.status(beacon, since: origin))) }
                fflush(nil)
                return
            }
            var table = TextTable(header: ["beacon", "rssi", "smoothed", "distance m", "proximity", "seen s ago"], rightAligned: [1, 2, 3, 5])
            for beacon in monitor.beacons {
                table.rows.append([
                    beacon.identity.description, "\(beacon.rssi)", String(format: "%.1f", beacon.smoothedRSSI),
                    beacon.distance.map { String(format: "%.2f", $0) } ?? "-", beacon.proximity.rawValue,
                    String(format: "%.1f", now - beacon.lastSeen),
                ])
            }
            print("\u{1B}[H\u{1B}[2J" + "HeadsUp beacons — \(monitor.beacons.count) in range (Ctrl-C to stop)\n\n" + table.renderedForTerminal())
            fflush(nil)
        }
    }
}
