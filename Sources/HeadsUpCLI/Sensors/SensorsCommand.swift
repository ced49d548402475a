import ArgumentParser

/// `headsup sensors …`: the IIO sensors HeadsUp reads.
struct SensorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sensors",
        abstract: "List and read the IIO motion sensors (accelerometer, gyroscope, magnetometer).",
        subcommands: [SensorsListCommand.self, SensorsReadCommand.self])
}
