import ArgumentParser
import HeadsUpCrossings

/// `headsup crossings stats FILE`: what a crossings file holds.
struct CrossingsStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stats", abstract: "The total and the count per kind of a crossings file.")

    @Argument(help: "The crossings file.")
    var file: String

    func run() throws {
        let crossingsFile: CrossingsFile
        do { crossingsFile = try CrossingsFile.read(path: file) } catch { throw CommandError("\(error)") }
        let counts = Dictionary(grouping: crossingsFile.crossings, by: \.kind).mapValues(\.count)
        print("file\t\(file)")
        print("source\t\(crossingsFile.source)")
        print("source_timestamp\t\(crossingsFile.sourceTimestamp)")
        print("credit\t\(CrossingsFile.credit)")
        print("total\t\(crossingsFile.crossings.count)")
        for kind in CrossingKind.allCases { print("\(kind.rawValue)\t\(counts[kind, default: 0])") }
        print("with_kerbs\t\(crossingsFile.crossings.filter { !$0.kerbs.isEmpty }.count)")
    }
}
