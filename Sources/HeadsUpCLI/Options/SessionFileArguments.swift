import ArgumentParser
import Foundation
import HeadsUpEvaluation
import HeadsUpPipeline

/// Session files named on the command line; a directory stands for the
/// `.csv` and `.txt` files in it (and in its `sessions/` folder), sorted.
struct SessionFileArguments: ParsableArguments {
    @Argument(help: "Session CSV files, or directories of them.", completion: .file())
    var paths: [String] = []

    func validate() throws {
        if paths.isEmpty { throw ValidationError("name at least one session file or directory") }
    }

    func sessionFiles() throws -> [String] {
        try paths.flatMap { try Self.expand($0) }
    }

    static func expand(_ path: String) throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let root = URL(fileURLWithPath: path)
        let sessions = root.appendingPathComponent("sessions")
        var folder = root
        if FileManager.default.fileExists(atPath: sessions.path, isDirectory: &isDirectory), isDirectory.boolValue {
            folder = sessions
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { ($0.hasSuffix(".csv") || $0.hasSuffix(".txt")) && !$0.hasSuffix(ScreenTrack.besideSessionSuffix) }
            .sorted()
        if names.isEmpty { throw ValidationError("\(path): no .csv or .txt session files in this directory") }
        return names.map { folder.appendingPathComponent($0).path }
    }
}

/// A session's display name: the file name without folder and extension.
func sessionName(of path: String) -> String { EvaluationRun.sessionName(of: path) }
