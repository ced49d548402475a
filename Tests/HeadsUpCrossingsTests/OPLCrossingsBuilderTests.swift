import Testing

@testable import HeadsUpCrossings

@Suite("OSM crossings from OPL")
struct OPLCrossingsBuilderTests {
    @Test(arguments: [
        (["highway": "crossing", "crossing": "traffic_signals"], CrossingKind.signals),
        (["highway": "crossing", "crossing_ref": "toucan"], .signals),
        (["highway": "crossing", "crossing": "uncontrolled", "crossing:signals": "yes"], .signals),
        (["highway": "crossing", "crossing": "island"], .island),
        (["highway": "crossing", "crossing": "marked", "crossing:island": "yes"], .island),
        (["highway": "crossing", "crossing": "unmarked"], .unmarked),
        (["highway": "crossing", "crossing:markings": "no"], .unmarked),
        (["highway": "crossing", "crossing": "zebra"], .marked),
        (["highway": "crossing", "crossing": "uncontrolled", "crossing_ref": "zebra"], .marked),
        (["highway": "crossing", "crossing:markings": "dashes"], .marked),
        (["highway": "crossing", "crossing": "uncontrolled"], .uncontrolled),
        (["highway": "crossing"], .uncontrolled),
        (["railway": "level_crossing"], .railRoad),
        (["railway": "crossing", "highway": "crossing"], .railFoot),
    ])
    func classify(tags: [String: String], kind: CrossingKind) {
        #expect(CrossingKind.classify(tags) == kind)
    }

    @Test func notCrossings() {
        #expect(CrossingKind.classify(["highway": "crossing", "crossing": "no"]) == nil)
        #expect(CrossingKind.classify(["highway": "traffic_signals"]) == nil)
        #expect(CrossingKind.classify([:]) == nil)
    }

    @Test func nodesAndKerbs() throws {
        var builder = OPLCrossingsBuilder()
        let lines = [
            "n25191715 v3 dV c1 t2012-05-02T15:23:18Z i1 uA%20%b Thighway=crossing,crossing=traffic_signals x7.4223666 y43.7341664",
            "n21911886 v8 dV c1 t2014-01-01T00:00:00Z i1 u Thighway=crossing,crossing_ref=zebra,name=Rue%20%du%3d%Port x7.4234985 y43.7372399",
            "n5 v1 dV c1 t2010-01-01T00:00:00Z i1 u Thighway=crossing,crossing=no x7.4 y43.7",
            "n6 v1 dV c1 t2010-01-01T00:00:00Z i1 u Thighway=crossing x y",
            "w92627430 v3 dV c1 t2012-05-02T15:23:18Z i1 u Tfootway=crossing,highway=footway Nn1x7.4220794y43.7341038,n25191715x7.4223666y43.7341664,n2x7.4225294y43.7341842",
            "w9 v3 dV c1 t2012-05-02T15:23:18Z i1 u Tfootway=crossing,highway=footway Nn3x7.1y43.1,n4x7.2y43.2",
            "",
        ]
        for (number, line) in lines.enumerated() { try builder.add(line: line[...], lineNumber: number + 1) }
        let crossings = builder.finish()
        #expect(crossings.map(\.id) == [21_911_886, 25_191_715])
        #expect(crossings.map(\.kind) == [.marked, .signals])
        #expect(crossings[1].kerbs == [GeoPoint(latitude: 43.7341038, longitude: 7.4220794), GeoPoint(latitude: 43.7341842, longitude: 7.4225294)])
        #expect(crossings[0].kerbs.isEmpty)
        #expect(builder.counters.notCrossings == 1)
        #expect(builder.counters.withoutLocation == 1)
        #expect(builder.counters.waysWithoutNode == 1)
        #expect(builder.counters.kerbsAttached == 1)
        #expect(builder.newestTimestamp == "2014-01-01T00:00:00Z")
    }

    @Test func escapes() throws {
        #expect(try OPLCrossingsBuilder.tags("name=Rue%20%du%3d%Port,a=%1f600%", line: 1) == ["name": "Rue du=Port", "a": "😀"])
        #expect(throws: OPLError.self) { try OPLCrossingsBuilder.tags("name=bad%zz", line: 1) }
        #expect(throws: OPLError.self) { try OPLCrossingsBuilder.tags("novalue", line: 1) }
    }

    @Test func hostileLines() {
        var builder = OPLCrossingsBuilder()
        #expect(throws: OPLError(line: 3, reason: "'nx' is not an OSM object id")) { try builder.add(line: "nx v1", lineNumber: 3) }
        let duplicate = "n1 Thighway=crossing x1 y2"
        #expect(throws: OPLError.self) {
            try builder.add(line: duplicate[...], lineNumber: 1)
            try builder.add(line: duplicate[...], lineNumber: 2)
        }
        #expect(throws: OPLError.self) { try builder.add(line: "w1 Tfootway=crossing Nq5", lineNumber: 4) }
    }
}
