import ArgumentParser
import HeadsUpRuntime

/// Options shared by the beacon commands: adapter, smoothing, thresholds,
/// timing. Unset options keep HeadsUp's defaults (`config show` lists them);
/// each value is checked against its configuration key's range.
struct BeaconScanOptions: ParsableArguments {
    @Option(help: "Bluetooth adapter (hci0); default: the first powered one.")
    var adapter: String?

    @Option(help: "Stop after this many seconds (default: run until SIGINT/SIGTERM).")
    var seconds: Double?

    @Option(help: "RSSI smoothing: arma:C or trimmed:WINDOW_S:FRACTION (e.g. trimmed:20:0.1).")
    var filter: String?

    @Option(name: .customLong("enter-rssi"), help: "Enter when the smoothed RSSI reaches this many dBm (use with --exit-rssi).")
    var enterRSSI: Double?

    @Option(name: .customLong("exit-rssi"), help: "Exit when the smoothed RSSI falls below this many dBm.")
    var exitRSSI: Double?

    @Option(name: .customLong("enter-distance"), help: "Enter within this estimated distance in metres.")
    var enterDistance: Double?

    @Option(name: .customLong("exit-distance"), help: "Exit beyond this estimated distance in metres.")
    var exitDistance: Double?

    @Option(help: "Seconds the entry condition must hold before an enter event.")
    var dwell: Double?

    @Option(name: .customLong("exit-timeout"), help: "Seconds without an advertisement after which a beacon has left.")
    var exitTimeout: Double?

    @Option(name: .customLong("stall-timeout"), help: "Seconds without advertisements (after beacons were seen) before discovery is restarted.")
    var stallTimeout: Double?

    @Option(
        help: "discovery (default), or monitor: bluetoothd's advertisement monitor where it offers one, discovery otherwise.")
    var scan: String?

    @Option(name: .customLong("path-loss"), help: "Distance curve coefficients A,B,C for d = A·(rssi/power)^B + C.")
    var pathLoss: String?

    func validate() throws {
        _ = try settings()
    }

    /// The beacon settings: HeadsUp's defaults with these options over them.
    func settings() throws -> BeaconSettings {
        let values: [(String, SettingValue?)] = [
            ("beacons.adapter", adapter.map(SettingValue.string)), ("beacons.filter", filter.map(SettingValue.string)),
            ("beacons.enter_rssi", enterRSSI.map(SettingValue.number)), ("beacons.exit_rssi", exitRSSI.map(SettingValue.number)),
            ("beacons.enter_distance", enterDistance.map(SettingValue.number)), ("beacons.exit_distance", exitDistance.map(SettingValue.number)),
            ("beacons.dwell", dwell.map(SettingValue.number)), ("beacons.exit_timeout", exitTimeout.map(SettingValue.number)),
            ("beacons.stall_timeout", stallTimeout.map(SettingValue.number)), ("beacons.path_loss", pathLoss.map(SettingValue.string)),
            ("beacons.scan", scan.map(SettingValue.string)),
        ]
        var layers = LayeredSettings()
        do {
            for case (let key, let value?) in values { try layers.set(key, value) }
            return try layers.resolved().settings.beacons
        } catch {
            throw ValidationError(error.description)
        }
    }
}
