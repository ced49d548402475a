import Foundation
import HeadsUpBeacons
import HeadsUpCrossings
import HeadsUpData
import HeadsUpPipeline

/// Every configuration key HeadsUp knows, in the order `config show` lists
/// them: name, accepted values, help, and the `Settings` field it sets.
/// Defaults are not written here: they are `Settings()`'s.
public enum SettingsSchema {
    public static let keys: [SettingKey] = [
        .text("model", \.model.path, help: "Keras model file"),
        .optionalText("model_card", \.model.card, help: "model card JSON (unset: the model's .json sibling)"),
        .text("sensors.uri", \.sensors.uri, help: "IIO context"),
        .optionalText("sensors.accel", \.sensors.accelerometer, help: "accelerometer device (unset: found by its channels)"),
        .optionalText("sensors.gyro", \.sensors.gyroscope, help: "gyroscope device"),
        .optionalText("sensors.magn", \.sensors.magnetometer, help: "magnetometer device"),
        .choice("sensors.convention", \.sensors.convention, help: "axis convention the model was trained in"),
        .choice(
            "sensors.mode", \.sensors.mode,
            help: "how to read the IMU: auto polls sysfs at 50 Hz where iio-sensor-proxy may read it (so both run), else uses the IIO buffer"),
        .integer("windowing.hop", \.windowing.hop, in: 1...250, help: "samples between scored windows (25 = 0.5 s)"),
        .number("distraction.time_constant", \.distraction.timeConstant, in: 0...60, help: "score smoothing, seconds"),
        .number("distraction.enter_threshold", \.distraction.enterThreshold, in: 0.01...0.99, help: "smoothed score that makes the user distracted"),
        .optionalNumber(
            "distraction.exit_threshold", \.distraction.exitThreshold, in: 0...0.99,
            help: "smoothed score below which they are attentive again (unset: enter − 0.15)"),
        .number("distraction.minimum_duration", \.distraction.minimumDuration, in: 0...60, help: "seconds a threshold must stay crossed"),
        regionsKey,
        .optionalText("beacons.adapter", \.beacons.adapter, help: "Bluetooth adapter (unset: the first powered one)"),
        .optionalNumber("beacons.enter_rssi", \.beacons.enterRSSI, in: -127...0, help: "enter at this smoothed RSSI, dBm (with exit_rssi)"),
        .optionalNumber("beacons.exit_rssi", \.beacons.exitRSSI, in: -127...0, help: "exit below this smoothed RSSI, dBm"),
        .number("beacons.enter_distance", \.beacons.enterDistance, in: 0.1...100, help: "enter within this many metres"),
        .number("beacons.exit_distance", \.beacons.exitDistance, in: 0.1...200, help: "exit beyond this many metres"),
        .number("beacons.dwell", \.beacons.dwell, in: 0...60, help: "seconds the entry condition must hold before an enter"),
        .number("beacons.exit_timeout", \.beacons.exitTimeout, in: 0.5...600, help: "seconds unseen before a beacon has left"),
        filterKey,
        pathLossKey,
        .number("beacons.stall_timeout", \.beacons.stallTimeout, in: 1...3600, help: "seconds without advertisements before discovery restarts"),
        .choice(
            "beacons.scan", \.beacons.scan,
            help: "discovery, or monitor: bluetoothd's advertisement monitor where offered (RSSI moves of 8 dBm or more only), else discovery"),
        .optionalText(
            "crossings.file", \.crossings.file,
            help: "crossings file from `headsup crossings import` (OpenStreetMap; unset: beacons only)"),
        crossingKindsKey,
        .number(
            "crossings.radius", \.crossings.radius, in: 1...100,
            help: "metres around a crossing's node that count as at it, before the fix's accuracy"),
        .number("crossings.exit_radius", \.crossings.exitRadius, in: 2...200, help: "metres (plus accuracy) beyond which a crossing is left"),
        .number("crossings.cooldown", \.crossings.cooldown, in: 0...86400, help: "seconds before the same crossing may be entered and warn again"),
        .choice(
            "location.source", \.location.source,
            help: "auto (GeoClue2, else gpsd), geoclue (a phone's session), gpsd (localhost), or none: where positions for crossings.file come from"),
        .integer("location.gpsd_port", \.location.gpsdPort, in: 1...65535, help: "gpsd's TCP port on localhost (location.source: gpsd)"),
        .number("location.accuracy_floor", \.location.accuracyFloor, in: 0...50, help: "metres: a fix claiming better accuracy counts as this"),
        .number("location.max_accuracy", \.location.maximumAccuracy, in: 1...500, help: "metres: less accurate fixes (Wi-Fi, IP) are ignored"),
        .number("location.max_age", \.location.maximumAge, in: 0.5...120, help: "seconds: older fixes are ignored"),
        .number("location.max_speed", \.location.maximumSpeed, in: 0.5...20, help: "m/s: faster is not walking (a bus or a tram)"),
        .number(
            "location.exit_timeout", \.location.exitTimeout, in: 1...600, help: "seconds without a usable fix before the crossings held are left"),
        .choice("warning.sensitivity", \.sensitivity, help: "low, normal (the model card's values) or high; see Sensitivity"),
        .boolean(
            "warning.only_while_walking", \.warning.onlyWhileWalking, help: "warn only while the user walks (a step detector on the accelerometer)"),
        screenGateKey,
        .choice("warning.proximity", \.warning.proximity, among: [.immediate, .near, .far], help: "warn while inside at this proximity or closer"),
        .number("warning.check_interval", \.warning.checkInterval, in: 0.5...3600, help: "seconds between checks while inside a region"),
        .number("warning.cooldown", \.warning.cooldown, in: 0...86400, help: "seconds before a region warns again"),
        .text("warning.title", \.warning.title, help: "notification title"),
        .text("warning.body", \.warning.body, help: "notification body"),
        .list("warning.messages", \.warning.messages, help: "bodies used in turn, one per warning (unset: warning.body every time)"),
        .boolean("notifications.desktop", \.notifications.desktop, help: "org.freedesktop.Notifications on the session bus"),
        .boolean(
            "notifications.feedback", \.notifications.feedback,
            help: "vibrate and sound through feedbackd (Linux phones; skipped where it does not run)"),
        .text("notifications.feedback_event", \.notifications.feedbackEvent, help: "the feedbackd theme event a warning plays"),
        .integer(
            "notifications.feedback_timeout", \.notifications.feedbackTimeout, in: -1...600, help: "seconds it repeats unless acknowledged (-1: once)"
        ),
        .command("notifications.command", \.notifications.command, help: "program and arguments to run per warning (no shell)"),
        .number("notifications.command_timeout", \.notifications.commandTimeout, in: 0.1...600, help: "seconds"),
        .optionalText("notifications.webhook", \.notifications.webhook, isSecret: true, help: "http(s) URL to POST each warning to"),
        .number("notifications.webhook_timeout", \.notifications.webhookTimeout, in: 0.1...600, help: "seconds"),
        .integer("notifications.retries", \.notifications.retries, in: 0...10, help: "extra attempts for a failing sink"),
        .optionalText("notifications.json", \.notifications.json, help: "JSON lines of warnings: - or a file"),
        .optionalText(
            "notifications.mqtt.url", \.notifications.mqtt.url, help: "MQTT broker: mqtt://HOST[:PORT] or mqtts://HOST[:PORT] (unset: no MQTT)"),
        .optionalText("notifications.mqtt.username", \.notifications.mqtt.username, help: "MQTT user name"),
        .optionalText(
            "notifications.mqtt.password", \.notifications.mqtt.password, isSecret: true,
            help: "MQTT password (keep the file chmod 640, group headsup)"),
        .optionalText(
            "notifications.mqtt.client_id", \.notifications.mqtt.clientID, help: "MQTT client id and Home Assistant node id (unset: headsup-HOSTNAME)"
        ),
        .optionalText("notifications.mqtt.topic_prefix", \.notifications.mqtt.topicPrefix, help: "topics go under this (unset: headsup/CLIENT_ID)"),
        .optionalText(
            "notifications.mqtt.discovery_prefix", \.notifications.mqtt.discoveryPrefix,
            help: "Home Assistant discovery prefix (null: no discovery messages)"),
        .optionalText("notifications.mqtt.ca_file", \.notifications.mqtt.caFile, help: "PEM certificate authorities for mqtts (unset: the system's)"),
        .number("notifications.mqtt.score_interval", \.notifications.mqtt.scoreInterval, in: 0...3600, help: "seconds between score messages"),
    ]

    private static let keysByName = Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) })

    public static func key(_ name: String) -> SettingKey? { keysByName[name] }

    // MARK: Keys with their own syntax

    private static let regionsKey = SettingKey(
        name: "beacons.regions", help: "crossing regions: [NAME=]UUID[:MAJOR[:MINOR]], eddystone:…, altbeacon:…",
        accepts: "a list of region specs", read: { .list($0.beacons.regions) },
        write: { settings, value throws(SettingValueError) in
            let specs: [String]
            switch value {
            case .list(let items): specs = items
            case .string(let text): specs = [text]
            default: throw SettingValueError("expected a list of region specs")
            }
            for spec in specs {
                do { _ = try BeaconRegion.parse(spec) } catch { throw SettingValueError("'\(spec)': \(error)") }
            }
            settings.beacons.regions = specs
        })

    private static let crossingKindsKey = SettingKey(
        name: "crossings.kinds", help: "crossing kinds that warn: \(CrossingKind.names)", accepts: "a list of crossing kinds, or all",
        read: { .list($0.crossings.kinds.sorted().map(\.rawValue)) },
        write: { settings, value throws(SettingValueError) in
            let text: String
            switch value {
            case .list(let items): text = items.joined(separator: ",")
            case .string(let item): text = item
            default: throw SettingValueError("expected a list of crossing kinds (\(CrossingKind.names)) or all")
            }
            let kinds: Set<CrossingKind>
            do { kinds = try CrossingKind.parseList(text) } catch { throw SettingValueError("\(error)") }
            guard !kinds.isEmpty else { throw SettingValueError("name at least one kind (\(CrossingKind.names)), or all") }
            settings.crossings.kinds = kinds
        })

    /// auto, true or false: YAML reads true and false as booleans, a flag as text; both are taken.
    private static let screenGateKey = SettingKey(
        name: "warning.only_while_screen_on",
        help: "warn only while the phone is in use (screen on, unlocked; auto: where a screen source answers on the session bus)",
        accepts: "auto, true or false", read: { .string($0.warning.onlyWhileScreenOn.rawValue) },
        write: { settings, value throws(SettingValueError) in
            let gate: ScreenGate?
            switch value {
            case .boolean(let flag): gate = flag ? .on : .off
            case .string(let text): gate = ScreenGate(rawValue: text)
            default: gate = nil
            }
            guard let gate else { throw SettingValueError("expected auto, true or false") }
            settings.warning.onlyWhileScreenOn = gate
        })

    private static let filterKey = SettingKey(
        name: "beacons.filter", help: "RSSI smoothing",
        accepts: "arma:C (0 < C ≤ 1) or trimmed:WINDOW_S:FRACTION (0 < WINDOW_S ≤ 3600, 0 ≤ FRACTION < 0.5)",
        read: { .string($0.beacons.filter.spec) },
        write: { settings, value throws(SettingValueError) in
            guard case .string(let text) = value else { throw SettingValueError("expected arma:C or trimmed:WINDOW_S:FRACTION") }
            do { settings.beacons.filter = try RSSIFilterKind(parsing: text) } catch { throw SettingValueError("\(error)") }
        })

    private static let pathLossKey = SettingKey(
        name: "beacons.path_loss", help: "distance curve d = A·(rssi/power)^B + C", accepts: "three positive numbers A,B,C (each at most 1000000)",
        read: { settings in
            let model = settings.beacons.distance
            return .string([model.a, model.b, model.c].map { SettingValue.number($0).description }.joined(separator: ","))
        },
        write: { settings, value throws(SettingValueError) in
            guard case .string(let text) = value else { throw SettingValueError("expected three numbers A,B,C") }
            // Positive and at most a million: the curve's arithmetic stays finite.
            let numbers = text.split(separator: ",", omittingEmptySubsequences: false).compactMap {
                try? CheckedNumber.double($0, in: 0...1e6, what: "beacons.path_loss")
            }
            guard numbers.count == 3, numbers.allSatisfy({ $0 > 0 }) else {
                throw SettingValueError("'\(text)': expected three positive numbers A,B,C, each at most 1000000")
            }
            settings.beacons.distance.a = numbers[0]
            settings.beacons.distance.b = numbers[1]
            settings.beacons.distance.c = numbers[2]
        })
}
