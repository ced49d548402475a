import ArgumentParser
import Foundation
import HeadsUpBeacons
import HeadsUpBlueZ
import HeadsUpDBus
import HeadsUpData
import HeadsUpSystem
import Logging

/// The loop both beacon commands run: BlueZ sightings into a region
/// monitor, until the time is up or SIGINT/SIGTERM, then discovery stopped
/// and a summary on standard error.
struct BeaconLoop {
    let options: BeaconScanOptions
    let regions: [BeaconRegion]

    /// `body` gets the monitor, the events of this pass and the time origin.
    func run(_ body: (RegionMonitor, [RegionEvent], Double) -> Void) throws {
        let settings = try options.settings()
        let clock = SystemMonotonicClock()
        let origin = clock.now()
        let signals = TerminationSignals()
        let connection: DBusConnection
        do {
            connection = try DBusConnection(.system)
        } catch {
            throw CommandError("\(error.description). Is D-Bus running? HeadsUp talks to bluetoothd (BlueZ) on the system bus.")
        }
        var logger = Logger(label: "headsup.beacons")
        logger[metadataKey: "since_start"] = .stringConvertible(LazyElapsed(clock: clock, origin: origin))
        let scanner = BlueZScanner(
            connection: connection,
            options: .init(
                adapter: settings.adapter, stallTimeout: settings.stallTimeout, forgetAfter: settings.exitTimeout, regions: regions,
                scanMode: settings.scan),
            clock: clock, logger: logger)
        let configuration: RegionMonitorConfiguration
        do { configuration = try settings.monitorConfiguration() } catch { throw ValidationError(error.description) }
        var monitor = RegionMonitor(regions: regions, configuration: configuration)
        try scanner.start()
        // Read once: an option's getter is not free on a loop that runs per D-Bus message.
        let limit = options.seconds
        while !signals.requested {
            let now = clock.now()
            if let limit, now - origin >= limit { break }
            let sightings = try scanner.poll(timeout: 0.05)
            var events: [RegionEvent] = []
            for sighting in sightings { events += monitor.observe(sighting) }
            events += monitor.advance(to: clock.now())
            body(monitor, events, origin)
        }
        scanner.stop()
        let c = scanner.counters
        printError("beacons scan path: \(scanner.scanPath)")
        printError(
            "beacons: \(c.advertisements) advertisements, \(c.withoutBeacon) without a beacon frame, "
                + "\(monitor.ignoredSightings) of beacons in no region, \(c.oddPayloads) odd payloads ignored, "
                + "\(c.devicesForgotten) silent devices forgotten, \(c.devicesKnown) known, "
                + "\(c.bluetoothdRestarts) bluetoothd restarts, \(c.discoveryRestarts) discovery restarts, "
                + "\(c.setAside) updates set aside undecoded, \(c.monitorDevicesFound) devices found by the monitor, "
                + "\(c.foreignSignals) signals from other senders dropped")
    }
}

/// Seconds since the command started, formatted when a log line is written.
private struct LazyElapsed: CustomStringConvertible, Sendable {
    let clock: any MonotonicClock
    let origin: Double
    var description: String { String(format: "%.3f s", clock.now() - origin) }
}
