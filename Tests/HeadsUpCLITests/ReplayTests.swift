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

    @Test(arguments: ["crossing-hands", "crossing-pocket"])
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
