import ArgumentParser

/// `headsup model …`: look into, run and time Keras model files.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Inspect, run and benchmark Keras model files with HeadsUp's engine.",
        subcommands: [
            ModelInspectCommand.self, ModelPredictCommand.self, ModelBenchCommand.self, ModelSelftestCommand.self, ModelCheckCommand.self,
        ])
}
