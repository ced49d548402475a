import ArgumentParser
import Foundation
import Glibc
import HeadsUpModel

/// `headsup model check FILE`: the child side of ``IsolatedModelCheck``.
/// Loads the file under a memory and CPU-time limit and exits 0, or 1 with
/// the error; a file that crashes libhdf5 kills only this process.
struct ModelCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Load a model file in this process only, under limits (run by HeadsUp itself).",
        shouldDisplay: false)

    @Argument(help: "The model file.")
    var path: String

    @OptionGroup var modelFile: ModelFileOptions

    @Option(help: "Bytes of address space this process may use.")
    var memoryLimit: Int?

    @Option(help: "Seconds of CPU time this process may use.")
    var timeLimit: Int?

    @Flag(help: "Write the model's config and arrays to standard output, for the process that asked.")
    var transfer = false

    func run() throws {
        if let memoryLimit { limit(RLIMIT_AS, memoryLimit) }
        if let timeLimit { limit(RLIMIT_CPU, timeLimit) }
        guard transfer else {
            _ = try modelFile.load(path, isolated: false)
            return
        }
        let parts = try KerasModelLoader.readParts(path: path, architecture: modelFile.architecture)
        FileHandle.standardOutput.write(Data(parts.encoded()))
    }

    private func limit(_ resource: __rlimit_resource, _ value: Int) {
        var limits = rlimit(rlim_cur: rlim_t(value), rlim_max: rlim_t(value))
        setrlimit(__rlimit_resource_t(resource.rawValue), &limits)
    }
}
