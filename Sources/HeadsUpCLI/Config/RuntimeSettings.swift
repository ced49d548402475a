import Foundation
import HeadsUpBeacons
import HeadsUpData
import HeadsUpModel
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpSensors

/// The configuration turned into ready parts: model and card, pipeline
/// settings, sensor and beacon options, notification sinks. Fails with a
/// message naming the key and where it was set.
struct RuntimeSettings {
    let config: LayeredConfig
    let model: KerasModel
    let card: ModelCard?
    let layout: WindowLayout
    let pipeline: HeadsUpPipeline.Configuration
    let convention: AxisConvention

    init(config: LayeredConfig) throws {
        self.config = config
        func fail(_ key: String, _ message: String) -> CommandFailure {
            CommandFailure("\(config.source(key)): \(key): \(message)")
        }
        let modelPath = config.string("model") ?? "weights/model.h5"
        do {
            model = try KerasModelLoader.load(path: modelPath)
        } catch {
            throw CommandFailure(error.description)
        }
        let cardPath = config.string("model_card") ?? ModelCard.siblingPath(of: modelPath)
        if FileManager.default.fileExists(atPath: cardPath) {
            do {
                let card = try ModelCard.load(path: cardPath)
                try card.check(against: model)
                self.card = card
            } catch {
                throw CommandFailure(error.description)
            }
        } else {
            if config.string("model_card") != nil { throw fail("model_card", "\(cardPath) does not exist") }
            card = nil
        }
        // Without a card: a flat 450-vector is the seed's channel-major layout, [50, 9] time-major.
        layout = card.flatMap { WindowLayout(rawValue: $0.layout) } ?? (model.inputShape == [450] ? .channelMajor : .timeMajor)
        convention = config.string("sensors.convention").flatMap(AxisConvention.init(rawValue:))
            ?? card.flatMap { AxisConvention(rawValue: $0.convention) } ?? .coreMotion

        let hop = Int(config.number("windowing.hop") ?? 25)
        guard hop > 0 else { throw fail("windowing.hop", "must be a positive number of samples") }
        let threshold = config.number("distraction.enter_threshold") ?? card?.threshold ?? 0.5
        guard threshold > 0, threshold < 1 else { throw fail("distraction.enter_threshold", "must be between 0 and 1") }
        var distraction = DistractionConfiguration.around(threshold: threshold)
        if let exit = config.number("distraction.exit_threshold") {
            guard exit <= threshold else { throw fail("distraction.exit_threshold", "must not exceed the enter threshold \(threshold)") }
            distraction.exitThreshold = exit
        }
        distraction.timeConstant = config.number("distraction.time_constant") ?? 1
        distraction.minimumDuration = config.number("distraction.minimum_duration") ?? 0.5
        guard distraction.timeConstant >= 0 else { throw fail("distraction.time_constant", "must be ≥ 0") }

        var regions: [BeaconRegion] = []
        for spec in config.list("beacons.regions") {
            do { regions.append(try BeaconRegion.parse(spec)) } catch { throw fail("beacons.regions", error.description) }
        }
        let rule: RegionEntryRule
        do {
            rule = try .make(
                enterRSSI: config.number("beacons.enter_rssi"), exitRSSI: config.number("beacons.exit_rssi"),
                enterDistance: config.number("beacons.enter_distance") ?? 3, exitDistance: config.number("beacons.exit_distance") ?? 5)
        } catch {
            let key = ["exit RSSI": "beacons.exit_rssi", "enter RSSI": "beacons.enter_rssi", "exit distance": "beacons.exit_distance"][error.setting] ?? "beacons"
            throw fail(key, error.message)
        }
        let filter: RSSIFilterKind
        do {
            filter = try RSSIFilterKind(parsing: config.string("beacons.filter") ?? "arma:0.25")
        } catch {
            throw fail("beacons.filter", error.description)
        }
        let monitor = RegionMonitorConfiguration(
            rule: rule, dwell: config.number("beacons.dwell") ?? 1, exitTimeout: config.number("beacons.exit_timeout") ?? 10,
            filter: filter)
        let warning = WarningConfiguration(
            proximity: Proximity(rawValue: config.string("warning.proximity") ?? "near") ?? .near,
            checkInterval: config.number("warning.check_interval") ?? 5, cooldown: config.number("warning.cooldown") ?? 30,
            title: config.string("warning.title") ?? "Beware!", body: config.string("warning.body") ?? "You are crossing the road!")
        pipeline = HeadsUpPipeline.Configuration(
            windowing: WindowingConfiguration(length: 50, hop: hop), distraction: distraction, warning: warning, regions: regions,
            monitor: monitor)
    }

    var scorer: ModelScorer { ModelScorer(model: model, layout: layout) }

    /// The configured notification sinks.
    func makeSinks() throws -> [any NotificationSink] {
        var sinks: [any NotificationSink] = []
        if config.bool("notifications.desktop") ?? true { sinks.append(DesktopNotificationSink()) }
        let command = config.list("notifications.command")
        if !command.isEmpty { sinks.append(CommandSink(arguments: command, timeout: config.number("notifications.command_timeout") ?? 5)) }
        if let webhook = config.string("notifications.webhook") {
            guard let url = URL(string: webhook), url.scheme == "http" || url.scheme == "https" else {
                throw CommandFailure("\(config.source("notifications.webhook")): notifications.webhook: '\(webhook)' is not an http(s) URL")
            }
            sinks.append(WebhookSink(url: url, timeout: config.number("notifications.webhook_timeout") ?? 5))
        }
        if let json = config.string("notifications.json") { sinks.append(try JSONLinesSink(path: json)) }
        return sinks
    }
}

extension Warning {
    /// The warning as the sinks deliver it.
    var notification: NotificationMessage {
        var fields: [(String, String)] = [("region", region), ("beacon", beacon), ("rssi", String(rssi)), ("proximity", proximity.rawValue), ("trigger", trigger)]
        if let score { fields.append(("score", String(format: "%.3f", score))) }
        if let smoothedScore { fields.append(("smoothed_score", String(format: "%.3f", smoothedScore))) }
        return NotificationMessage(title: title, body: body, time: time, fields: fields)
    }
}
