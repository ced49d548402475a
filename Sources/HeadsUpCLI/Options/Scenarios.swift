import Foundation
import HeadsUpRuntime

/// Replay scenarios on the command line: a folder, or a bundled scenario's
/// name (`crossing-hands` → datasets/scenarios/crossing-hands wherever
/// HeadsUp's data is installed).
enum Scenarios {
    static func locate(_ argument: String) throws -> String {
        guard !argument.contains("/"), !FileManager.default.fileExists(atPath: argument) else { return argument }
        do { return try BundledData.forThisProcess().locate("datasets/scenarios/\(argument)") } catch { throw CommandError(error.description) }
    }
}
