import Foundation
import HeadsUpBeacons
import HeadsUpDBus

/// The loop both beacon commands run: BlueZ sightings into a region
/// monitor, until the time is up or SIGINT/SIGTERM, then discovery stopped
/// and a summary on standard error.
struct BeaconLoop {
    let options: BeaconScanOptions
    let regions: [BeaconRegion]
    let json: Bool

    /// `body` gets the monitor, the events of this pass and the time origin.
    func run(_ body: (RegionMonitor, [RegionEvent], Double) -> Void) throws {
        let clock = SystemMonotonicClock()
        let origin = clock.now()
        let signals = TerminationSignals()
        let connection: DBusConnection
        do {
            connection = try DBusConnection(.system)
        } catch {
            throw CommandFailure("\(error.description). Is D-Bus running? HeadsUp talks to bluetoothd (BlueZ) on the system bus.")
        }
        let scanner = BlueZScanner(
            connection: connection, options: .init(adapter: options.adapter, stallTimeout: options.stallTimeout), clock: clock
        ) { level, message in
            let time = String(format: "%.3f", clock.now() - origin)
            printError("[\(time)] \(level.rawValue): \(message)")
        }
        var monitor = RegionMonitor(regions: regions, configuration: try options.monitorConfiguration())
        try scanner.start()
        while !signals.requested {
            let now = clock.now()
            if let seconds = options.seconds, now - origin >= seconds { break }
            let sightings = try scanner.poll(timeout: 0.05)
            var events: [RegionEvent] = []
            for sighting in sightings { events += monitor.observe(sighting) }
            events += monitor.advance(to: clock.now())
            body(monitor, events, origin)
        }
        scanner.stop()
        let c = scanner.counters
        printError(
            "beacons: \(c.advertisements) advertisements, \(c.oddPayloads) odd payloads ignored, "
                + "\(c.bluetoothdRestarts) bluetoothd restarts, \(c.discoveryRestarts) discovery restarts")
    }
}
