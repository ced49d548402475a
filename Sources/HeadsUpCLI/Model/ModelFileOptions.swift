import ArgumentParser
import HeadsUpModel
import HeadsUpRuntime

/// The model file and, for weights-only files, its architecture.
struct ModelFileOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: "Architecture JSON for a weights-only file (model.to_json() or the Keras 3 config).")
    var architecture: String?

    /// Loads the file, first in a child process (``IsolatedModelCheck``) unless `isolated` is false.
    func load(_ path: String, engine: KerasModelLoader.Engine = .fast, isolated: Bool = true) throws -> KerasModel {
        do {
            if isolated { try IsolatedModelCheck.currentExecutable()?.check(path: path, architecture: architecture) }
            return try KerasModelLoader.load(path: path, architecture: architecture, engine: engine)
        } catch {
            throw CommandError(error.description)
        }
    }
}
