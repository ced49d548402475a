import ArgumentParser
import HeadsUpModel
import HeadsUpRuntime

/// The model file and, for weights-only files, its architecture.
struct ModelFileOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: "Architecture JSON for a weights-only file (model.to_json() or the Keras 3 config).")
    var architecture: String?

    /// Loads the file through a child process (``IsolatedModelCheck``) unless `isolated` is false.
    func load(_ path: String, engine: KerasModelLoader.Engine = .fast, isolated: Bool = true) throws -> KerasModel {
        let kernels = try KernelChoice.fromEnvironment()
        if isolated, let check = IsolatedModelCheck.currentExecutable() {
            return try check.load(path: path, architecture: architecture, engine: engine, kernels: kernels)
        }
        return try KerasModelLoader.load(path: path, architecture: architecture, engine: engine, kernels: kernels)
    }
}
