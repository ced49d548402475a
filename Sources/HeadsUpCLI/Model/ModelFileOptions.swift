import ArgumentParser
import HeadsUpModel

/// The model file and, for weights-only files, its architecture.
struct ModelFileOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: "Architecture JSON for a weights-only file (model.to_json() or the Keras 3 config).")
    var architecture: String?

    func load(_ path: String) throws -> KerasModel {
        do {
            return try KerasModelLoader.load(path: path, architecture: architecture)
        } catch {
            throw CommandFailure(error.description)
        }
    }
}

/// An error already worded for the user: printed as it is, exit status 1.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String
    init(_ message: String) { description = message }
}
