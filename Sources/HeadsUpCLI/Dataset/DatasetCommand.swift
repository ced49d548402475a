import ArgumentParser

/// `headsup dataset …`: look into recorded sessions.
struct DatasetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dataset",
        abstract: "Inspect labelled session recordings.",
        subcommands: [DatasetStatsCommand.self, DatasetWindowsCommand.self])
}
