import ArgumentParser
import Foundation

/// Flags shared by `live`, `replay` and `config show`; each one overrides
/// the configuration files.
struct RuntimeOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: "A configuration file (YAML) layered over /etc/headsup and $XDG_CONFIG_HOME/headsup.", completion: .file())
    var configFile: String?

    @Option(help: "Keras model file.", completion: .file())
    var model: String?

    @Option(name: .customLong("region"), help: "A crossing region (repeatable; replaces the configured ones).")
    var regions: [String] = []

    @Option(help: "Samples between scored windows (25 = 0.5 s).")
    var hop: Int?

    @Option(help: "Decision threshold for becoming distracted (default: the model card's).")
    var threshold: Double?

    @Option(name: .customLong("notify-command"), parsing: .upToNextOption, help: "Program and arguments to run for each warning (no shell).")
    var notifyCommand: [String] = []

    @Option(help: "URL to POST each warning to as JSON.")
    var webhook: String?

    @Flag(name: .customLong("no-desktop"), help: "Do not send desktop notifications.")
    var noDesktop = false

    func loadConfig() throws -> LayeredConfig {
        var config: LayeredConfig
        do {
            config = try LayeredConfig.load(explicit: configFile)
        } catch {
            throw CommandFailure("\(error)")
        }
        if let model { config.set("model", .string(model)) }
        if !regions.isEmpty { config.set("beacons.regions", .list(regions)) }
        if let hop { config.set("windowing.hop", .number(Double(hop))) }
        if let threshold { config.set("distraction.enter_threshold", .number(threshold)) }
        if !notifyCommand.isEmpty { config.set("notifications.command", .list(notifyCommand)) }
        if let webhook { config.set("notifications.webhook", .string(webhook)) }
        if noDesktop { config.set("notifications.desktop", .boolean(false)) }
        return config
    }
}
