import ArgumentParser
import HeadsUpBeacons

/// Options shared by the beacon commands: adapter, smoothing, thresholds, timing.
struct BeaconScanOptions: ParsableArguments {
    @Option(help: "Bluetooth adapter (hci0); default: the first powered one.")
    var adapter: String?

    @Option(help: "Stop after this many seconds (default: run until SIGINT/SIGTERM).")
    var seconds: Double?

    @Option(help: "RSSI smoothing: arma:C (default arma:0.25) or trimmed:WINDOW_S:FRACTION (e.g. trimmed:20:0.1).")
    var filter: String = "arma:0.25"

    @Option(name: .customLong("enter-rssi"), help: "Enter when the smoothed RSSI reaches this many dBm (use with --exit-rssi).")
    var enterRSSI: Double?

    @Option(name: .customLong("exit-rssi"), help: "Exit when the smoothed RSSI falls below this many dBm.")
    var exitRSSI: Double?

    @Option(name: .customLong("enter-distance"), help: "Enter within this estimated distance in metres.")
    var enterDistance: Double = 3

    @Option(name: .customLong("exit-distance"), help: "Exit beyond this estimated distance in metres.")
    var exitDistance: Double = 5

    @Option(help: "Seconds the entry condition must hold before an enter event.")
    var dwell: Double = 1

    @Option(name: .customLong("exit-timeout"), help: "Seconds without an advertisement after which a beacon has left.")
    var exitTimeout: Double = 10

    @Option(name: .customLong("stall-timeout"), help: "Seconds without advertisements (after beacons were seen) before discovery is restarted.")
    var stallTimeout: Double = 30

    @Option(name: .customLong("path-loss"), help: "Distance curve coefficients A,B,C for d = A·(rssi/power)^B + C.")
    var pathLoss: String = "0.42093,6.9476,0.54992"

    func validate() throws {
        _ = try monitorConfiguration()
    }

    func monitorConfiguration() throws -> RegionMonitorConfiguration {
        let rule: RegionEntryRule
        do {
            rule = try .make(enterRSSI: enterRSSI, exitRSSI: exitRSSI, enterDistance: enterDistance, exitDistance: exitDistance)
        } catch {
            let flag = ["exit RSSI": "--exit-rssi", "enter RSSI": "--enter-rssi", "exit distance": "--exit-distance"][error.setting] ?? ""
            throw ValidationError("\(flag): \(error.message)")
        }
        let filterKind: RSSIFilterKind
        do { filterKind = try RSSIFilterKind(parsing: filter) } catch { throw ValidationError("--filter: \(error)") }
        let coefficients = pathLoss.split(separator: ",").compactMap { Double($0) }
        guard coefficients.count == 3 else { throw ValidationError("--path-loss takes three numbers A,B,C") }
        guard dwell >= 0, exitTimeout > 0, stallTimeout > 0 else {
            throw ValidationError("--dwell must be ≥ 0 and the timeouts positive")
        }
        return RegionMonitorConfiguration(
            rule: rule, dwell: dwell, exitTimeout: exitTimeout, filter: filterKind,
            distance: DistanceModel(a: coefficients[0], b: coefficients[1], c: coefficients[2]))
    }
}
