import Foundation
import HeadsUpTestSupport
import Testing

@Suite("headsup replay")
struct ReplayTests {
    func replay(_ scenario: String) throws -> ProcessOutput {
        try runHeadsUp([
            "replay", TestEnvironment.path("datasets/scenarios/\(scenario)"), "--json", "--model", TestEnvironment.path("weights/model.h5"),
            "--no-desktop",
        ])
    }

    @Test(arguments: ["crossing-hands", "crossing-pocket", "map-crossing-walk", "map-parallel-street", "map-bus", "map-wifi-fix"])
    func shippedScenariosGiveTheExpectedEventsByteForByte(scenario: String) throws {
        let first = try replay(scenario)
        let second = try replay(scenario)
        #expect(first.status == 0, "\(first.standardError)")
        let expected = try String(contentsOfFile: TestEnvironment.path("datasets/scenarios/\(scenario)/expected.jsonl"), encoding: .utf8)
        #expect(first.standardOutput == second.standardOutput, "deterministic at --speed max")
        #expect(first.standardOutput == expected)
    }

    @Test func theHandsWalkWarnsOnceAtTheEntryAndThePocketWalkNever() throws {
        func events(_ text: String) -> [[String: Any]] {
            text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        let hands = events(try replay("crossing-hands").standardOutput)
        let warnings = hands.filter { $0["event"] as? String == "warning" }
        #expect(warnings.count == 1)
        #expect(warnings.first?["title"] as? String == "Beware!")
        #expect(warnings.first?["body"] as? String == "You are crossing the road!")
        #expect(warnings.first?["trigger"] as? String == "enter")
        let enter = hands.first { $0["event"] as? String == "enter" }
        #expect(enter?["t"] as? Double == warnings.first?["t"] as? Double)
        let pocket = events(try replay("crossing-pocket").standardOutput)
        #expect(pocket.filter { $0["event"] as? String == "warning" }.isEmpty)
        #expect(pocket.contains { $0["event"] as? String == "decision" && $0["outcome"] as? String == "not-distracted" })
    }

    static func events(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// The Monaco walks (datasets/scenarios/map-*): over a mapped crossing
    /// one warning at its entry; 40 m to the side, on a bus, or with 60 m
    /// Wi-Fi fixes none, each for its own reason in the summary.
    @Test func mappedCrossingWalksWarnOnlyOnFootOverTheCrossing() throws {
        let walk = try replay("map-crossing-walk")
        let events = Self.events(walk.standardOutput)
        let warnings = events.filter { $0["event"] as? String == "warning" }
        #expect(warnings.count == 1)
        #expect(warnings.first?["region"] as? String == "osm:node/21911888")
        #expect(warnings.first?["beacon"] as? String == "osm:node/21911888 (marked)")
        #expect(events.first { $0["event"] as? String == "enter" }?["t"] as? Double == warnings.first?["t"] as? Double)
        #expect(walk.standardError.contains("1 crossings entered"))
        for (scenario, reason) in [
            ("map-parallel-street", "46 used"), ("map-bus", "46 too fast"), ("map-wifi-fix", "46 too inaccurate"),
        ] {
            let result = try replay(scenario)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(!Self.events(result.standardOutput).contains { ["warning", "enter"].contains($0["event"] as? String) }, "\(scenario)")
            let summary = result.standardError
            #expect(summary.contains("locations: 46 fixes") && summary.contains(reason) && summary.contains("0 crossings entered"), "\(summary)")
        }
    }

    /// A beacon and a mapped crossing at one place: one warning; the second
    /// source's entry says cooling-down. Given as --locations and --crossings
    /// to the beacon walk, and as --beacons to the map walk.
    @Test func aBeaconAndAMappedCrossingAtOnePlaceWarnOnce() throws {
        let model = TestEnvironment.path("weights/model.h5")
        for arguments in [
            [
                TestEnvironment.path("datasets/scenarios/crossing-hands"), "--locations",
                TestEnvironment.path("datasets/scenarios/map-crossing-walk/locations.csv"), "--crossings",
                TestEnvironment.path("datasets/crossings/monaco.tsv"),
            ],
            [
                TestEnvironment.path("datasets/scenarios/map-crossing-walk"), "--beacons",
                TestEnvironment.path("datasets/scenarios/crossing-hands/beacons.csv"),
            ],
        ] {
            let result = try runHeadsUp(["replay"] + arguments + ["--json", "--model", model, "--no-desktop"])
            #expect(result.status == 0, "\(result.standardError)")
            let events = Self.events(result.standardOutput)
            #expect(events.filter { $0["event"] as? String == "warning" }.count == 1)
            #expect(
                Set(events.filter { $0["event"] as? String == "enter" }.compactMap { $0["region"] as? String }) == ["crossing", "osm:node/21911888"])
            let beaconEntry = events.first {
                $0["event"] as? String == "decision" && $0["region"] as? String == "crossing" && $0["trigger"] as? String == "enter"
            }
            #expect(beaconEntry?["outcome"] as? String == "cooling-down")
        }
    }

    /// A bad location track or crossings file stops the replay with the file, the line and what is wrong.
    @Test func badLocationTracksAndCrossingsFilesSayWhatIsWrong() throws {
        let directory = try TemporaryDirectory()
        let track = try directory.write("locations.csv", "time,latitude,longitude,accuracy,speed,heading\n1,95,7.4,5,1,0\n")
        let model = TestEnvironment.path("weights/model.h5")
        let badTrack = try runHeadsUp([
            "replay", TestEnvironment.path("datasets/scenarios/map-crossing-walk"), "--locations", track, "--model", model, "--no-desktop",
        ])
        #expect(badTrack.status != 0)
        #expect(badTrack.standardError.contains("\(track):2: '95', '7.4' is not a latitude"), "\(badTrack.standardError)")
        let crossings = try directory.write("crossings.tsv", "id,lat,lon\n")
        let badFile = try runHeadsUp([
            "replay", TestEnvironment.path("datasets/scenarios/map-crossing-walk"), "--crossings", crossings, "--model", model, "--no-desktop",
        ])
        #expect(badFile.status != 0)
        #expect(
            badFile.standardError.contains("crossings.file") && badFile.standardError.contains("\(crossings): not a HeadsUp crossings file"),
            "\(badFile.standardError)")
    }

    /// warning.only_while_screen_on with a screen track: the hands walk warns
    /// with the screen on, and with it blanked says screen-off instead.
    @Test func aScreenTrackGatesTheHandsWalk() throws {
        func events(_ track: String, gate: String = "auto") throws -> [[String: Any]] {
            let directory = try TemporaryDirectory()
            let path = try directory.write("screen.csv", track)
            let config = try directory.write("config.yaml", "warning:\n  only_while_screen_on: \(gate)\n")
            let result = try runHeadsUp([
                "replay", TestEnvironment.path("datasets/scenarios/crossing-hands"), "--screen", path, "--json", "--model",
                TestEnvironment.path("weights/model.h5"), "--no-desktop", "--config", config,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        func count(_ events: [[String: Any]], _ name: String) -> Int { events.filter { $0["event"] as? String == name }.count }
        let on = try events("time,state\n0,on\n")
        #expect(count(on, "warning") == 1)
        #expect(on.first { $0["event"] as? String == "screen" }?["state"] as? String == "on")
        let blanked = try events("# blanked from the start\ntime,state\n0,off\n")
        #expect(count(blanked, "warning") == 0)
        #expect(blanked.contains { $0["event"] as? String == "decision" && $0["outcome"] as? String == "screen-off" })
        #expect(count(try events("0,locked\n", gate: "false"), "warning") == 1, "the gate turned off: the motion model alone")
        let directory = try TemporaryDirectory()
        let bad = try runHeadsUp([
            "replay", TestEnvironment.path("datasets/scenarios/crossing-hands"), "--screen", try directory.write("screen.csv", "0,dim\n"),
            "--model", TestEnvironment.path("weights/model.h5"),
        ])
        #expect(bad.status != 0)
        #expect(bad.standardError.contains("screen.csv:1: state 'dim' is not one of on, off, locked, idle, unknown"), "\(bad.standardError)")
    }

    @Test func aBadScenarioLineIsNamed() throws {
        let directory = try TemporaryDirectory()
        let beacons = try directory.write("beacons.csv", "region,crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D\n12.0,ibeacon:nope,-60,-59\n")
        let result = try runHeadsUp([
            "replay", TestEnvironment.path("datasets/scenarios/crossing-hands/session.csv"), "--beacons", beacons,
            "--model", TestEnvironment.path("weights/model.h5"),
        ])
        #expect(result.status != 0)
        #expect(result.standardError.contains("beacons.csv:2: 'ibeacon:nope' is not a beacon identity"))
    }
}

@Suite("Recordings from other phones")
struct OtherPhoneTests {
    /// The crossing-hands session as an Android logger writes it: Unix
    /// milliseconds, m/s², and gravity with the opposite sign.
    func androidCopy(in directory: TemporaryDirectory) throws -> String {
        let original = try String(contentsOfFile: TestEnvironment.path("datasets/scenarios/crossing-hands/session.csv"), encoding: .utf8)
        var lines: [String] = []
        for row in original.split(separator: "\n") {
            var fields = row.split(separator: ",").map { Double($0)! }
            fields[1] *= 1000
            for axis in 2...4 { fields[axis] *= -9.80665 }
            lines.append(
                fields.enumerated().map { $0.offset == 0 ? String(Int($0.element)) : String(format: "%.6f", $0.element) }.joined(separator: ","))
        }
        return try directory.write("android.csv", lines.joined(separator: "\n") + "\n")
    }

    @Test func anAndroidRecordingIsConvertedAndScoredWithTheModelsAxes() throws {
        let directory = try TemporaryDirectory()
        let android = try androidCopy(in: directory)
        let beacons = TestEnvironment.path("datasets/scenarios/crossing-hands/beacons.csv")
        let model = TestEnvironment.path("weights/model.h5")
        let result = try runHeadsUp(["replay", android, "--beacons", beacons, "--json", "--model", model, "--no-desktop"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("acceleration in m/s²"), "\(result.standardError)")
        #expect(result.standardError.contains("Android/IIO convention"))
        let expected = try String(contentsOfFile: TestEnvironment.path("datasets/scenarios/crossing-hands/expected.jsonl"), encoding: .utf8)
        #expect(result.standardOutput == expected, "same events as the iPhone original")
        // Fed as recorded (no sign flip), the model would see the classes inverted.
        let unflipped = try runHeadsUp([
            "replay", android, "--beacons", beacons, "--json", "--model", model, "--no-desktop", "--source-axes", "coremotion",
        ])
        #expect(!unflipped.standardOutput.contains("\"event\":\"warning\""))
    }
}

@Suite("headsup live --simulate")
struct LiveSimulationTests {
    /// The live job itself (session, sinks, counters) on the bundled hands
    /// walk instead of sensors and beacons: one warning, then it ends with the recording.
    @Test func theHandsWalkSimulatedLiveWarnsOnceAndEnds() throws {
        let directory = try TemporaryDirectory()
        let warnings = directory.path("warnings.jsonl")
        let result = try runHeadsUp(
            [
                "live", "--simulate", "crossing-hands", "--speed", "25", "--json", "--no-desktop", "--config",
                try directory.write("sinks.yaml", "notifications:\n  json: \(warnings)\n"),
            ], environment: TestEnvironment.awayFromTheDesktop())
        #expect(result.status == 0, "\(result.standardError)")
        let events = result.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(events.filter { $0["event"] as? String == "warning" }.count == 1)
        #expect(result.standardError.contains("warnings 1"), "\(result.standardError)")
        #expect(try String(contentsOfFile: warnings, encoding: .utf8).split(separator: "\n").count == 1, "the sink got it")
    }

    /// The Monaco walk played live: the recorded fixes go through the same
    /// pipeline and sinks, one warning at the mapped crossing; the bus
    /// ride, none, its fixes counted as too fast.
    @Test func theMappedCrossingWalkSimulatedLiveWarnsOnceAndTheBusNever() throws {
        let directory = try TemporaryDirectory()
        let warnings = directory.path("warnings.jsonl")
        let config = try directory.write("sinks.yaml", "notifications:\n  json: \(warnings)\n")
        let walk = try runHeadsUp(
            ["live", "--simulate", "map-crossing-walk", "--speed", "25", "--json", "--no-desktop", "--config", config],
            environment: TestEnvironment.awayFromTheDesktop())
        #expect(walk.status == 0, "\(walk.standardError)")
        let events = walk.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let warned = events.filter { $0["event"] as? String == "warning" }
        #expect(warned.count == 1)
        #expect(warned.first?["region"] as? String == "osm:node/21911888")
        #expect(try String(contentsOfFile: warnings, encoding: .utf8).contains(#"node\/21911888 (marked)"#), "the sink got it")
        #expect(walk.standardError.contains("1 crossings entered"), "\(walk.standardError)")
        let bus = try runHeadsUp(
            ["live", "--simulate", "map-bus", "--speed", "25", "--json", "--no-desktop"], environment: TestEnvironment.awayFromTheDesktop())
        #expect(bus.status == 0, "\(bus.standardError)")
        #expect(!bus.standardOutput.contains("\"warning\""))
        #expect(bus.standardError.contains("0 fixes used") && bus.standardError.contains("too fast"), "\(bus.standardError)")
    }

    /// The recording is read as replay reads it (SessionStream): the same
    /// reading flags, the same note of what was left out.
    @Test func aSimulatedRecordingTakesReplaysReadingFlagsAndCounts() throws {
        let pocket = try runHeadsUp(["live", "--simulate", "crossing-pocket", "--speed", "50", "--json", "--no-desktop", "--lenient"])
        #expect(pocket.status == 0, "\(pocket.standardError)")
        let replay = try runHeadsUp(["replay", "crossing-pocket", "--lenient"])
        let note = "38 samples dropped for times that go back or that no clock gives"
        #expect(pocket.standardError.contains(note), "\(pocket.standardError)")
        #expect(replay.standardError.contains(note), "\(replay.standardError)")
        let misplaced = try runHeadsUp(["live", "--lenient", "--seconds", "1"])
        #expect(misplaced.status != 0)
        #expect(misplaced.standardError.contains("go with --simulate"), "\(misplaced.standardError)")
    }
}
