import ArgumentParser

/// `headsup config …`
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show HeadsUp's effective configuration.", subcommands: [ConfigShowCommand.self])
}

/// `headsup config show`: every key, its effective value and where it came from.
struct ConfigShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the effective configuration and the source of each value.",
        discussion: "Layers, lowest first: built-in defaults, /etc/headsup/config.yaml, $XDG_CONFIG_HOME/headsup/config.yaml, --config FILE, command-line flags.")

    @OptionGroup var runtime: RuntimeOptions

    func run() throws {
        let config = try runtime.loadConfig()
        for warning in config.warnings { printError("warning: \(warning)") }
        print(config.rendered())
    }
}
