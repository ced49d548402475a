import Foundation
import Testing

@testable import HeadsUpCrossings

@Suite("Crossings file")
struct CrossingsFileTests {
    let sample = CrossingsFile(
        source: "monaco.osm.pbf", sourceTimestamp: "2016-03-05T00:26:02Z", madeWith: "headsup crossings import (test)",
        crossings: [
            Crossing(id: 21_911_886, kind: .marked, position: GeoPoint(latitude: 43.7372399, longitude: 7.4234985)),
            Crossing(
                id: 25_191_715, kind: .signals, position: GeoPoint(latitude: 43.7341664, longitude: 7.4223666),
                kerbs: [GeoPoint(latitude: 43.7341038, longitude: 7.4220794), GeoPoint(latitude: 43.7341842, longitude: -7.4225294)]),
            Crossing(id: 7, kind: .railRoad, position: GeoPoint(latitude: -33.5, longitude: 0)),
        ])

    func parse(_ text: String) throws(CrossingsFileError) -> CrossingsFile {
        try CrossingsFile.parse(Data(text.utf8), path: "city.tsv")
    }

    @Test func roundTrip() throws {
        let text = sample.text()
        #expect(text.hasPrefix("# headsup-crossings 1\n# source: monaco.osm.pbf\n# source_timestamp: 2016-03-05T00:26:02Z\n"))
        #expect(text.contains("# credit: © OpenStreetMap contributors, ODbL 1.0\n"))
        #expect(text.contains("\n25191715\tsignals\t43.7341664\t7.4223666\t43.7341038,7.4220794;43.7341842,-7.4225294\n"))
        #expect(text.contains("\n7\trail-road\t-33.5\t0\t\n"))
        #expect(try parse(text) == sample)
    }

    @Test func headerValuesStayOnOneLine() throws {
        var file = sample
        file.source = "evil\nname\t.pbf"
        #expect(try parse(file.text()).source == "evil name .pbf")
    }

    @Test func foreignFile() {
        #expect(throws: CrossingsFileError(path: "city.tsv", problem: .foreign)) { try parse("id,lat,lon\n1,2,3\n") }
        // An OSM extract given by mistake (PBF starts with a length and "OSMHeader").
        #expect(throws: CrossingsFileError(path: "city.tsv", problem: .foreign)) {
            try CrossingsFile.parse(Data([0, 0, 0, 13, 10, 9, 0x4F, 0x53, 0x4D, 0xFF, 0xFE]), path: "city.tsv")
        }
        #expect(throws: CrossingsFileError(path: "city.tsv", problem: .foreign)) { try parse("") }
    }

    @Test func otherVersion() {
        let text = sample.text().replacingOccurrences(of: "# headsup-crossings 1", with: "# headsup-crossings 2")
        let error = #expect(throws: CrossingsFileError.self) { try parse(text) }
        #expect(error?.problem == .version("2"))
        #expect(error?.description.contains("city.tsv: crossings file format version 2") == true)
    }

    @Test func creditIsRequired() {
        let text = sample.text().replacingOccurrences(of: "© OpenStreetMap contributors, ODbL 1.0", with: "nobody")
        let error = #expect(throws: CrossingsFileError.self) { try parse(text) }
        #expect(error?.description.contains("OpenStreetMap credit") == true)
    }

    @Test(arguments: [
        ("1\tmarked\t43.7\t7.4", "4 tab-separated fields"),
        ("x\tmarked\t43.7\t7.4\t", "not an OSM node id"),
        ("-5\tmarked\t43.7\t7.4\t", "not an OSM node id"),
        ("1\tzebra\t43.7\t7.4\t", "'zebra' is not a crossing kind"),
        ("1\tmarked\tnan\t7.4\t", "not on Earth"),
        ("1\tmarked\t91\t7.4\t", "not on Earth"),
        ("1\tmarked\t43.7\teast\t", "not a latitude and longitude"),
        ("1\tmarked\t43.7\t7.4\t43.7", "is not LATITUDE,LONGITUDE"),
        ("1\tmarked\t43.7\t7.4\t1,2;3,4;5,6", "at most 2"),
    ])
    func badRow(row: String, reason: String) {
        let text = sample.text() + row + "\n"
        let error = #expect(throws: CrossingsFileError.self) { try parse(text) }
        #expect(error?.description.hasPrefix("city.tsv: line 12: ") == true, "\(String(describing: error))")
        #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
    }

    @Test func truncated() {
        var lines = sample.text().split(separator: "\n")
        lines.removeLast()
        let error = #expect(throws: CrossingsFileError.self) { try parse(lines.joined(separator: "\n")) }
        #expect(error?.problem == .count(expected: 3, found: 2))
    }

    @Test func badHeader() {
        for (from, to, reason) in [
            ("# count: 3", "# count: lots", "not a number"), ("# source:", "# origin:", "should be '# source: …'"),
            ("id\tkind", "id kind", "should name the columns"),
        ] {
            let error = #expect(throws: CrossingsFileError.self) { try parse(sample.text().replacingOccurrences(of: from, with: to)) }
            #expect(error?.description.contains(reason) == true, "\(String(describing: error))")
        }
        let error = #expect(throws: CrossingsFileError.self) { try parse("# headsup-crossings 1\n# source: x\n") }
        #expect(error?.description.contains("ends before") == true)
    }

    @Test func unreadable() {
        #expect(throws: CrossingsFileError(path: "/nonexistent/c.tsv", problem: .unreadable)) { try CrossingsFile.read(path: "/nonexistent/c.tsv") }
        #expect(throws: CrossingsFileError(path: "/tmp", problem: .unreadable)) { try CrossingsFile.read(path: "/tmp") }
    }

    @Test func kindLists() throws {
        #expect(try CrossingKind.parseList("signals, marked") == [.signals, .marked])
        #expect(try CrossingKind.parseList("all") == Set(CrossingKind.allCases))
        #expect(throws: CrossingKindError(name: "zebra")) { try CrossingKind.parseList("marked,zebra") }
    }
}
