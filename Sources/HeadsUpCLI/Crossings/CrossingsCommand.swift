import ArgumentParser

/// `headsup crossings …`: road crossings from OpenStreetMap.
struct CrossingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crossings",
        abstract: "Import OpenStreetMap road crossings and look them up.",
        discussion: "Map data © OpenStreetMap contributors, ODbL 1.0 (https://www.openstreetmap.org/copyright).",
        subcommands: [CrossingsImportCommand.self, CrossingsNearCommand.self, CrossingsStatsCommand.self, CrossingsBenchCommand.self])
}
