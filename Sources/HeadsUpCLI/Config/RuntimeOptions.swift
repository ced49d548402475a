import ArgumentParser
import Foundation
import HeadsUpRuntime

/// Flags shared by `live`, `replay` and `config show`; each one overrides
/// the configuration files.
struct RuntimeOptions: ParsableArguments {
    @Option(
        name: .customLong("config"), help: "A configuration file (YAML) layered over /etc/headsup and $XDG_CONFIG_HOME/headsup.", completion: .file())
    var configFile: String?

    @Option(
        name: .customLong("model"), help: "Keras model file (evaluate takes it more than once to compare models).", completion: .file())
    var models: [String] = []

    /// The one model of commands that run one.
    var model: String? { models.first }

    @Option(name: .customLong("region"), help: "A crossing region (repeatable; replaces the configured ones).")
    var regions: [String] = []

    @Option(help: "A crossings file from `headsup crossings import` (sets crossings.file).", completion: .file())
    var crossings: String?

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

    /// The configuration files with these flags layered on top; `model`
    /// replaces the --model flag (evaluate runs each of several in turn).
    func loadSettings(model: String? = nil) throws -> LayeredSettings {
        if model == nil, models.count > 1 {
            throw CommandError("--model is given \(models.count) times; only evaluate compares several models")
        }
        let model = model ?? self.model
        var layers = try LayeredSettings.load(explicit: configFile)
        if let model { try layers.set("model", .string(model)) }
        if !regions.isEmpty { try layers.set("beacons.regions", .list(regions)) }
        if let crossings { try layers.set("crossings.file", .string(crossings)) }
        if let hop { try layers.set("windowing.hop", .number(Double(hop))) }
        if let threshold { try layers.set("distraction.enter_threshold", .number(threshold)) }
        if !notifyCommand.isEmpty { try layers.set("notifications.command", .list(notifyCommand)) }
        if let webhook { try layers.set("notifications.webhook", .string(webhook)) }
        if noDesktop { try layers.set("notifications.desktop", .boolean(false)) }
        return layers
    }

    /// One more command-line value, over the files and the shared flags.
    func override(_ layers: inout LayeredSettings, _ key: String, _ value: SettingValue) throws {
        try layers.set(key, value)
    }

    /// The settings resolved with the model and its card.
    func setUp(_ layers: LayeredSettings) throws -> RuntimeSetup {
        let kernels = try KernelChoice.fromEnvironment()
        return try RuntimeSetup(layers: layers, modelCheck: IsolatedModelCheck.currentExecutable(), kernels: kernels)
    }
}
