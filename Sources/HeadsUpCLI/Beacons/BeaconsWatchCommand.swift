import ArgumentParser
import Foundation
import HeadsUpBeacons
import HeadsUpRuntime

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
        try BeaconLoop(options: options, regions: regions).run { _, events, origin in
            for event in events {
                if json {
                    print(JSONLine.encode(BeaconJSON.event(event, since: origin)))
                } else {
                    print(event.text(since: origin))
                }
            }
            if !events.isEmpty { fflush(nil) }
        }
    }
}
