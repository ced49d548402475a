import ArgumentParser
import HeadsUpRuntime

/// The `headsup` command: the root that lists every concern's subcommands.
public struct HeadsUpCommand: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "headsup",
        abstract: "Warn a pedestrian who is looking at their phone as they step into a road crossing.",
        discussion: """
            HeadsUp reads accelerometer, gyroscope and magnetometer data, scores 1-second windows \
            with an LSTM trained in Keras, and warns when a distracted user enters a crossing \
            marked by a BLE beacon.
            """,
        version: HeadsUpVersion.current,
        subcommands: [
            DatasetCommand.self, ModelCommand.self, SensorsCommand.self, RecordCommand.self, BeaconsCommand.self, CrossingsCommand.self,
            LiveCommand.self, SnoozeCommand.self, StatusCommand.self, ReplayCommand.self, EvaluateCommand.self, ConfigCommand.self,
        ])

    public init() {}
}
