import Foundation
import HeadsUpTestSupport
import Testing

/// `headsup crossings import` on the two real extracts of
/// osm-crossings-v1 (ODbL; outside the repository, in ../shared/datasets,
/// or HEADSUP_OSM_EXTRACTS), in every format it reads, with the counts per
/// kind checked against osmium's own tag filters (an independent reading
/// of the same rule, docs/crossings.md), and the errors of bad files.
@Suite("headsup crossings (OSM extracts, osmium)")
struct CrossingsImportSystemTests {
    static let osmium = "/usr/bin/osmium"
    static var extracts: String {
        ProcessInfo.processInfo.environment["HEADSUP_OSM_EXTRACTS"] ?? TestEnvironment.path("../shared/datasets/osm-crossings-v1")
    }

    func requireOsmium() throws {
        try requireCapability(
            FileManager.default.isExecutableFile(atPath: Self.osmium), "osmium is not installed (apt install osmium-tool; tools/install-deps.sh)")
    }

    func extract(_ name: String) throws -> String {
        try requireOsmium()
        let path = "\(Self.extracts)/\(name).osm.pbf"
        try requireCapability(
            FileManager.default.fileExists(atPath: path), "\(path) is missing (the osm-crossings-v1 data set; HEADSUP_OSM_EXTRACTS)")
        return path
    }

    func osmium(_ arguments: [String]) throws {
        let result = try runProcess(Self.osmium, arguments)
        #expect(result.status == 0, "osmium \(arguments): \(result.standardError)")
    }

    /// Nodes in an OSM file.
    func nodes(_ path: String) throws -> Int {
        let result = try runProcess(Self.osmium, ["fileinfo", "-e", "-g", "data.count.nodes", path])
        return Int(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// The count per kind by osmium's tag filters alone: each kind's tags
    /// kept from what earlier kinds left (`-i` inverts a filter).
    func osmiumCounts(_ extract: String, in directory: TemporaryDirectory) throws -> [String: Int] {
        let dir = directory.url.path
        var counts: [String: Int] = [:]
        try osmium(["tags-filter", "-O", "-R", extract, "n/railway=level_crossing", "-o", "\(dir)/rail-road.osm.pbf"])
        try osmium(["tags-filter", "-O", "-R", extract, "n/railway=crossing", "-o", "\(dir)/rail-foot.osm.pbf"])
        counts["rail-road"] = try nodes("\(dir)/rail-road.osm.pbf")
        counts["rail-foot"] = try nodes("\(dir)/rail-foot.osm.pbf")
        try osmium(["tags-filter", "-O", "-R", extract, "n/highway=crossing", "-o", "\(dir)/h.osm.pbf"])
        try osmium([
            "tags-filter", "-O", "-R", "-i", "\(dir)/h.osm.pbf", "n/railway=crossing,level_crossing", "n/crossing=no", "-o", "\(dir)/rest.osm.pbf",
        ])
        let steps: [(String, [String])] = [
            ("signals", ["n/crossing=traffic_signals", "n/crossing:signals=yes", "n/crossing_ref=pelican,toucan,puffin,pegasus,tiger"]),
            ("island", ["n/crossing=island", "n/crossing:island=yes"]),
            ("unmarked", ["n/crossing=unmarked,informal", "n/crossing:markings=no"]),
            ("marked", ["n/crossing=marked,zebra", "n/crossing_ref=zebra", "n/crossing:markings"]),
        ]
        for (kind, filters) in steps {
            try osmium(["tags-filter", "-O", "-R", "\(dir)/rest.osm.pbf"] + filters + ["-o", "\(dir)/\(kind).osm.pbf"])
            counts[kind] = try nodes("\(dir)/\(kind).osm.pbf")
            try osmium(["tags-filter", "-O", "-R", "-i", "\(dir)/rest.osm.pbf"] + filters + ["-o", "\(dir)/next.osm.pbf"])
            try FileManager.default.removeItem(atPath: "\(dir)/rest.osm.pbf")
            try FileManager.default.moveItem(atPath: "\(dir)/next.osm.pbf", toPath: "\(dir)/rest.osm.pbf")
        }
        counts["uncontrolled"] = try nodes("\(dir)/rest.osm.pbf")
        return counts
    }

    /// `crossings stats` as a table.
    func stats(_ file: String) throws -> [String: String] {
        let result = try runHeadsUp(["crossings", "stats", file])
        #expect(result.status == 0, "\(result.standardError)")
        return Dictionary(
            result.standardOutput.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }, uniquingKeysWith: { a, _ in a })
    }

    /// The crossing rows, without the header (which names the source).
    func rows(_ file: String) throws -> [Substring] {
        Array(try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").dropFirst(8))
    }

    @Test(arguments: [("monaco", 388), ("andorra", 46)])
    func importsEveryFormatWithOsmiumsCountsPerKind(name: String, total: Int) throws {
        let pbf = try extract(name)
        let directory = try TemporaryDirectory()
        let expected = try osmiumCounts(pbf, in: directory)
        var firstRows: [Substring]?
        for format in ["osm.pbf", "osm", "osm.gz", "osm.bz2"] {
            let input = format == "osm.pbf" ? pbf : "\(directory.url.path)/\(name).\(format)"
            if format != "osm.pbf" { try osmium(["cat", "-O", pbf, "-o", input]) }
            let out = "\(directory.url.path)/\(name)-\(format).tsv"
            let result = try runHeadsUp(["crossings", "import", input, "--out", out])
            #expect(result.status == 0, "\(format): \(result.standardError)")
            #expect(result.standardOutput.contains("© OpenStreetMap contributors, ODbL 1.0"))
            let table = try stats(out)
            #expect(table["total"] == "\(total)", "\(format)")
            for (kind, count) in expected { #expect(table[kind] == "\(count)", "\(name).\(format): \(kind)") }
            #expect(table["credit"] == "© OpenStreetMap contributors, ODbL 1.0")
            #expect(table["source"] == "\(name).\(format)")
            let rows = try rows(out)
            if let firstRows { #expect(rows == firstRows, "\(format) gives other crossings than .osm.pbf") } else { firstRows = rows }
        }
        #expect(expected.values.reduce(0, +) == total)
    }

    /// Monaco maps 16 footway=crossing ways; each crossing that got kerbs lies between them.
    @Test func monacoKerbsComeFromItsCrossingWays() throws {
        let pbf = try extract("monaco")
        let directory = try TemporaryDirectory()
        let out = "\(directory.url.path)/monaco.tsv"
        #expect(try runHeadsUp(["crossings", "import", pbf, "--out", out]).status == 0)
        try osmium(["tags-filter", "-O", "-R", pbf, "w/footway=crossing", "-o", "\(directory.url.path)/ways.osm.pbf"])
        let ways = try runProcess(Self.osmium, ["fileinfo", "-e", "-g", "data.count.ways", "\(directory.url.path)/ways.osm.pbf"])
        let wayCount = Int(ways.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        let withKerbs = try rows(out).map { $0.split(separator: "\t", omittingEmptySubsequences: false) }.filter { !$0[4].isEmpty }
        #expect(wayCount == 16)
        #expect(!withKerbs.isEmpty && withKerbs.count <= wayCount)
        for row in withKerbs {
            let (lat, lon) = (Double(row[2])!, Double(row[3])!)
            for kerb in row[4].split(separator: ";") {
                let parts = kerb.split(separator: ",").compactMap { Double($0) }
                let metres = hypot((parts[0] - lat) * 111_195, (parts[1] - lon) * 111_195 * cos(lat * .pi / 180))
                #expect(metres < 40, "kerb \(kerb) is \(metres) m from node \(row[0])")
            }
        }
        let near = try runHeadsUp(["crossings", "near", String(withKerbs[0][2]), String(withKerbs[0][3]), "--radius", "5", "--file", out])
        #expect(near.status == 0)
        #expect(near.standardOutput.contains("osm:node/\(withKerbs[0][0])"))
        #expect(near.standardOutput.contains("ODbL 1.0"))
    }

    @Test func badExtractsAndFilesSayWhatIsWrong() throws {
        try requireOsmium()
        let directory = try TemporaryDirectory()
        let garbage = try directory.write("city.osm.pbf", "this is not a PBF file\n")
        let out = "\(directory.url.path)/c.tsv"
        let broken = try runHeadsUp(["crossings", "import", garbage, "--out", out])
        #expect(broken.status != 0)
        #expect(broken.standardError.contains(garbage) && broken.standardError.contains("osmium"), "\(broken.standardError)")
        #expect(!FileManager.default.fileExists(atPath: out))
        let named = try directory.write("city.csv", "id,lat\n")
        let wrongName = try runHeadsUp(["crossings", "import", named, "--out", out])
        #expect(wrongName.status != 0 && wrongName.standardError.contains("not an OSM extract"), "\(wrongName.standardError)")
        let missing = try runHeadsUp(["crossings", "import", "\(directory.url.path)/none.osm.pbf", "--out", out])
        #expect(missing.status != 0 && missing.standardError.contains("no such file"), "\(missing.standardError)")
        // An extract given where a crossings file belongs: foreign, and how to import it.
        let pbf = try extract("andorra")
        let foreign = try runHeadsUp(["crossings", "stats", pbf])
        #expect(foreign.status != 0)
        #expect(foreign.standardError.contains("\(pbf): not a HeadsUp crossings file"), "\(foreign.standardError)")
        #expect(foreign.standardError.contains("headsup crossings import"))
        // A file cut short, and one of a later version.
        #expect(try runHeadsUp(["crossings", "import", pbf, "--out", out]).status == 0)
        var lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        lines.removeLast(3)
        let cut = try directory.write("cut.tsv", lines.joined(separator: "\n") + "\n")
        let short = try runHeadsUp(["crossings", "near", "42.5", "1.5", "--file", cut])
        #expect(
            short.status != 0 && short.standardError.contains("\(cut): the header says 46 crossings but the file holds 43"), "\(short.standardError)")
        let later = try directory.write(
            "v9.tsv", lines.joined(separator: "\n").replacingOccurrences(of: "# headsup-crossings 1", with: "# headsup-crossings 9"))
        let version = try runHeadsUp(["crossings", "stats", later])
        #expect(version.status != 0 && version.standardError.contains("format version 9"), "\(version.standardError)")
    }
}
