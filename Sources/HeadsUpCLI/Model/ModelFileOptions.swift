import ArgumentParser
import HeadsUpModel

/// The model file and, for weights-only files, its architecture.
struct ModelFileOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: "Architecture JSON for a weights-only file (model.to_json() or the Keras 3 config).")
    var architecture: String?

    func load(_ path: String, engine: KerasModelLoader.Engine = .fast) throws -> KerasModel {
        do {
            return try KerasModelLoader.load(path: path, architecture: architecture, engine: engine)
        } catch {
            throw CommandError(error.description)
        }
    }
}
