import ArgumentParser
import HeadsUpEvaluation
import HeadsUpModel
import HeadsUpRuntime

/// `headsup config …`
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Show HeadsUp's effective configuration and every setting it knows.",
        subcommands: [ConfigShowCommand.self, ConfigReferenceCommand.self])
}

/// `headsup config show`: every key, its effective value and where it came from.
struct ConfigShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Print the effective configuration and the source of each value.",
        discussion: """
            Layers, lowest first: built-in defaults, the model card, /etc/headsup/config.yaml, \
            $XDG_CONFIG_HOME/headsup/config.yaml, --config FILE, command-line flags. Secrets \
            (a webhook URL's path and query) are shown redacted.
            """)

    @OptionGroup var runtime: RuntimeOptions

    func run() throws {
        let layers = try runtime.loadSettings()
        for warning in layers.warnings { printError("warning: \(warning)") }
        let resolved: ResolvedSettings
        do {
            resolved = try RuntimeSetup(layers: layers, modelCheck: IsolatedModelCheck.currentExecutable()).resolved
        } catch {
            // Without a loadable model the card's layer is missing; show the rest. (A catch of
            // `.model` alone, rethrowing the rest, crashes Swift 6.2.3's SIL verifier.)
            guard case .model(let modelError) = error else { throw error }
            printError("warning: \(modelError); the model card's values are not shown")
            resolved = try layers.resolved()
        }
        try RuntimeSetup.checkSinkSettings(resolved)
        var table = TextTable(header: ["key", "value", "from"])
        for row in resolved.rows { table.rows.append([row.key, row.value, row.source]) }
        print(table.renderedForTerminal())
    }
}

/// `headsup config reference`: every key with what it sets, what it accepts
/// and its default (docs/configuration.md is this command's Markdown).
struct ConfigReferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reference",
        abstract: "Print every setting: what it sets, what it accepts and its default.",
        discussion: "Defaults are the built-in ones and, marked, those the model card sets (the bundled model's unless --card is given).")

    @Option(help: "The model card whose values to show as defaults (default: the bundled model's).", completion: .file())
    var card: String?

    @Flag(help: "Print a Markdown table (what docs/configuration.md holds).")
    var markdown = false

    func run() throws {
        let path = try card ?? BundledData.forThisProcess().locate("weights/model.json")
        let modelCard = try ModelCard.load(path: path)
        if markdown {
            print(try SettingsReference.markdown(card: modelCard), terminator: "")
        } else {
            var table = TextTable(header: SettingsReference.header)
            table.rows = try SettingsReference.rows(card: modelCard)
            print(table.renderedForTerminal())
        }
    }
}
