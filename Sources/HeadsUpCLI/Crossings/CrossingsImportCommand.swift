import ArgumentParser
import HeadsUpCrossings
import HeadsUpRuntime

/// `headsup crossings import EXTRACT --out FILE`.
struct CrossingsImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Turn an OSM extract into a HeadsUp crossings file (needs osmium-tool).",
        discussion: """
            EXTRACT is an OpenStreetMap extract (.osm.pbf, .osm, .osm.gz or .osm.bz2), e.g. your \
            region's from download.geofabrik.de. The crossings file keeps each crossing's OSM node id, \
            kind, position and kerbs, with the OpenStreetMap credit: it is a derivative database under \
            the ODbL 1.0, and must carry that credit wherever it is shared.
            """)

    @Argument(help: "The OSM extract.")
    var extract: String

    @Option(help: "The crossings file to write.")
    var out: String

    func run() throws {
        let summary: CrossingsImport.Summary
        do { summary = try CrossingsImport().run(extract: extract, output: out) } catch { throw CommandError("\(error)") }
        let kinds = CrossingKind.allCases.map { "\($0.rawValue) \(summary.byKind[$0, default: 0])" }.joined(separator: ", ")
        print("\(out): \(summary.file.crossings.count) crossings (\(kinds)), \(summary.counters.kerbsAttached) with kerbs")
        print("source: \(summary.file.source), \(summary.file.sourceTimestamp)")
        print("map data \(CrossingsFile.credit)")
    }
}
