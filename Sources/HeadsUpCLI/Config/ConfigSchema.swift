/// Every configuration key HeadsUp knows, its type and built-in default.
/// The one place that lists them: files, flags and `config show` all go
/// through it, so an unknown key is always noticed.
enum ConfigSchema {
    enum Kind: Equatable {
        case string, number, integer, boolean, stringList
        case choice([String])
    }

    struct Key {
        var name: String
        var kind: Kind
        var defaultValue: ConfigValue
        var help: String
    }

    static let keys: [Key] = [
        Key(name: "model", kind: .string, defaultValue: .string("weights/model.h5"), help: "Keras model file"),
        Key(name: "model_card", kind: .string, defaultValue: .null, help: "model card JSON (default: the model's .json sibling)"),
        Key(name: "sensors.uri", kind: .string, defaultValue: .string("local:"), help: "IIO context"),
        Key(name: "sensors.accel", kind: .string, defaultValue: .null, help: "accelerometer device"),
        Key(name: "sensors.gyro", kind: .string, defaultValue: .null, help: "gyroscope device"),
        Key(name: "sensors.magn", kind: .string, defaultValue: .null, help: "magnetometer device"),
        Key(name: "sensors.convention", kind: .choice(["coremotion", "android"]), defaultValue: .null, help: "axis convention (default: the model card's)"),
        Key(name: "windowing.hop", kind: .integer, defaultValue: .number(25), help: "samples between windows (25 = 0.5 s)"),
        Key(name: "distraction.time_constant", kind: .number, defaultValue: .number(1), help: "score smoothing, seconds"),
        Key(name: "distraction.enter_threshold", kind: .number, defaultValue: .null, help: "default: the model card's threshold"),
        Key(name: "distraction.exit_threshold", kind: .number, defaultValue: .null, help: "default: enter − 0.15"),
        Key(name: "distraction.minimum_duration", kind: .number, defaultValue: .number(0.5), help: "seconds a threshold must stay crossed"),
        Key(name: "beacons.regions", kind: .stringList, defaultValue: .list([]), help: "region specs"),
        Key(name: "beacons.adapter", kind: .string, defaultValue: .null, help: "Bluetooth adapter"),
        Key(name: "beacons.enter_rssi", kind: .number, defaultValue: .null, help: "enter at this smoothed RSSI (with exit_rssi)"),
        Key(name: "beacons.exit_rssi", kind: .number, defaultValue: .null, help: "exit below this smoothed RSSI"),
        Key(name: "beacons.enter_distance", kind: .number, defaultValue: .number(3), help: "enter within metres"),
        Key(name: "beacons.exit_distance", kind: .number, defaultValue: .number(5), help: "exit beyond metres"),
        Key(name: "beacons.dwell", kind: .number, defaultValue: .number(1), help: "seconds before an enter"),
        Key(name: "beacons.exit_timeout", kind: .number, defaultValue: .number(10), help: "seconds unseen before an exit"),
        Key(name: "beacons.filter", kind: .string, defaultValue: .string("arma:0.25"), help: "arma:C or trimmed:WINDOW:FRACTION"),
        Key(name: "beacons.stall_timeout", kind: .number, defaultValue: .number(30), help: "seconds without advertisements before discovery restarts"),
        Key(name: "warning.proximity", kind: .choice(["immediate", "near", "far"]), defaultValue: .string("near"), help: "warn while inside at this proximity or closer"),
        Key(name: "warning.check_interval", kind: .number, defaultValue: .number(5), help: "seconds between checks while inside"),
        Key(name: "warning.cooldown", kind: .number, defaultValue: .number(30), help: "seconds before a region warns again"),
        Key(name: "warning.title", kind: .string, defaultValue: .string("Beware!"), help: "notification title"),
        Key(name: "warning.body", kind: .string, defaultValue: .string("You are crossing the road!"), help: "notification body"),
        Key(name: "notifications.desktop", kind: .boolean, defaultValue: .boolean(true), help: "org.freedesktop.Notifications on the session bus"),
        Key(name: "notifications.command", kind: .stringList, defaultValue: .list([]), help: "program and arguments to run per warning"),
        Key(name: "notifications.command_timeout", kind: .number, defaultValue: .number(5), help: "seconds"),
        Key(name: "notifications.webhook", kind: .string, defaultValue: .null, help: "URL to POST each warning to"),
        Key(name: "notifications.webhook_timeout", kind: .number, defaultValue: .number(5), help: "seconds"),
        Key(name: "notifications.retries", kind: .integer, defaultValue: .number(2), help: "extra attempts for a failing sink"),
        Key(name: "notifications.json", kind: .string, defaultValue: .null, help: "JSON lines of warnings: - or a file"),
    ]

    static func key(_ name: String) -> Key? { keys.first { $0.name == name } }
}

/// A configuration value.
enum ConfigValue: Equatable, CustomStringConvertible {
    case null
    case string(String)
    case number(Double)
    case boolean(Bool)
    case list([String])

    var description: String {
        switch self {
        case .null: "(unset)"
        case .string(let s): s
        case .number(let n): n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case .boolean(let b): b ? "true" : "false"
        case .list(let items): "[" + items.joined(separator: ", ") + "]"
        }
    }
}
