import Foundation
import HeadsUpData
import HeadsUpPipeline
import HeadsUpRuntime
import HeadsUpTestSupport
import Testing

/// `replay` as a library call, in process: what the command prints comes from here.
@Suite("ScenarioReplay")
struct ScenarioReplayTests {
    func setUp(_ layers: LayeredSettings = LayeredSettings()) throws -> RuntimeSetup {
        var layers = layers
        try layers.set("model", .string(TestEnvironment.path("weights/model.h5")))
        return try RuntimeSetup(layers: layers)
    }

    /// The events as `replay --json` prints them.
    func jsonLines(_ replay: ScenarioReplay, setup: RuntimeSetup) throws -> (String, ReplaySummary) {
        var output = ""
        let summary = try replay.run(setup: setup) { event, origin in
            if let line = PipelineEventFormatter(origin: origin, includeScores: false).json(event) { output += line + "\n" }
        }
        return (output, summary)
    }

    @Test(arguments: ["crossing-hands", "crossing-pocket"])
    func theBundledScenariosGiveTheirExpectedEventsByteForByte(name: String) throws {
        let scenario = try Scenario.open(TestEnvironment.path("datasets/scenarios/\(name)"))
        let replay = ScenarioReplay(scenario: scenario)
        let setup = try setUp(try replay.settings(LayeredSettings(), keepRegions: false))
        let (output, summary) = try jsonLines(replay, setup: setup)
        let expected = try String(contentsOfFile: TestEnvironment.path("datasets/scenarios/\(name)/expected.jsonl"), encoding: .utf8)
        #expect(output == expected)
        #expect(summary.counters.warnings == (name == "crossing-hands" ? 1 : 0))
        #expect(summary.description.hasPrefix("replay: \(summary.counters.samples) samples, \(summary.counters.windowsScored) windows scored"))
    }

    @Test func theScenariosRegionsReplaceConfiguredOnesButNotTheCommandLines() throws {
        let scenario = try Scenario.open(TestEnvironment.path("datasets/scenarios/crossing-hands"))
        let replay = ScenarioReplay(scenario: scenario)
        var configured = LayeredSettings()
        try configured.set("beacons.regions", .list(["elsewhere=ibeacon:11111111-2222-3333-4444-555555555555"]))
        let fromScenario = try replay.settings(configured, keepRegions: false).resolved()
        #expect(fromScenario.source(of: "beacons.regions") == scenario.beaconsPath)
        let kept = try replay.settings(configured, keepRegions: true).resolved()
        #expect(kept.source(of: "beacons.regions") == LayeredSettings.commandLine)
        // With the other region only, the walk enters no region and never warns.
        let (_, summary) = try jsonLines(replay, setup: try setUp(try replay.settings(configured, keepRegions: true)))
        #expect(summary.counters.warnings == 0)
    }

    @Test func repeatsPlayTheWalkBackToBackAsOneStream() throws {
        let scenario = try Scenario.open(TestEnvironment.path("datasets/scenarios/crossing-hands"))
        var replay = ScenarioReplay(scenario: scenario)
        let setup = try setUp(try replay.settings(LayeredSettings(), keepRegions: false))
        let (_, once) = try jsonLines(replay, setup: setup)
        replay.repeats = 3
        let (_, thrice) = try jsonLines(replay, setup: setup)
        // One stream: the grid runs on across each join (a step or so more than three separate walks).
        #expect(abs(thrice.counters.samples - 3 * once.counters.samples) <= 2, "\(thrice.counters.samples) against \(once.counters.samples)")
        #expect(thrice.counters.warnings == 3)
    }

    @Test func aSkippedRowIsReportedInTheSummary() throws {
        let directory = try TemporaryDirectory()
        var lines = try String(contentsOfFile: TestEnvironment.path("datasets/scenarios/crossing-hands/session.csv"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        lines.insert("1,not-a-number,0,0,0,0,0,0,0,0,0", at: 100)
        let session = try directory.write("session.csv", lines.joined(separator: "\n") + "\n")
        let replay = ScenarioReplay(scenario: try Scenario.open(session), csv: SessionCSVOptions(lenient: true))
        let (_, summary) = try jsonLines(replay, setup: try setUp())
        #expect(summary.leftOut.skippedRows == 1)
        #expect(summary.description.contains("; 1 malformed rows skipped (--lenient)"), "\(summary.description)")
    }

    /// Six rows of 1e39 g (beyond Float32: infinity in the window) in the
    /// bundled hands walk: their windows are skipped and counted, the
    /// smoother never sees them, and the walk warns as the clean one does.
    @Test func aPoisonedWalkWarnsAsTheCleanOneDoes() throws {
        let clean = try Scenario.open(TestEnvironment.path("datasets/scenarios/crossing-hands"))
        let cleanReplay = ScenarioReplay(scenario: clean)
        let setup = try setUp(try cleanReplay.settings(LayeredSettings(), keepRegions: false))
        let (cleanOutput, cleanSummary) = try jsonLines(cleanReplay, setup: setup)

        let directory = try TemporaryDirectory()
        var rows = try String(contentsOfFile: clean.session, encoding: .utf8).split(separator: "\n").map(String.init)
        // Before the user is first distracted (the smoother would hold NaN and never warn), and again mid-walk.
        for index in Array(40..<46) + Array(1500..<1506) {
            var fields = rows[index].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            fields[2] = "1e39"
            fields[3] = "-1e39"
            fields[4] = "1e39"
            rows[index] = fields.joined(separator: ",")
        }
        _ = try directory.write("session.csv", rows.joined(separator: "\n") + "\n")
        _ = try directory.write("beacons.csv", try String(contentsOfFile: try #require(clean.beaconsPath), encoding: .utf8))
        let poisoned = ScenarioReplay(scenario: try Scenario.open(directory.url.path))
        var smoothed: [Double] = []
        var events: [PipelineEvent] = []
        var poisonedOutput = ""
        let summary = try poisoned.run(setup: setup) { event, origin in
            events.append(event)
            if let line = PipelineEventFormatter(origin: origin, includeScores: false).json(event) { poisonedOutput += line + "\n" }
            if case .scored(let window) = event { smoothed.append(window.smoothed) }
        }
        func warnings(_ text: String) -> [String] { text.split(separator: "\n").map(String.init).filter { $0.contains("\"event\":\"warning\"") } }
        #expect(summary.counters.warnings == cleanSummary.counters.warnings)
        #expect(summary.counters.warnings == 1)
        #expect(summary.counters.windowsWithNonFiniteSamples > 0)
        #expect(summary.counters.windowsScored + summary.counters.windowsWithNonFiniteSamples == cleanSummary.counters.windowsScored)
        let nonFinite = smoothed.filter { !$0.isFinite }.count
        #expect(nonFinite == 0)
        // The same warnings: time, region, beacon, RSSI, text and trigger (the scores differ a little: a few windows fewer).
        func withoutScores(_ lines: [String]) -> [String] {
            lines.map { $0.replacingOccurrences(of: #""score":[0-9.]+,"smoothed_score":[0-9.]+,"#, with: "", options: .regularExpression) }
        }
        let poisonedWarnings = withoutScores(warnings(poisonedOutput))
        let cleanWarnings = withoutScores(warnings(cleanOutput))
        #expect(poisonedWarnings == cleanWarnings)
        #expect(events.contains { if case .windowUnscored(_, .nonFiniteSamples) = $0 { true } else { false } })
        #expect(
            summary.description.contains("unscored \(summary.counters.windowsWithNonFiniteSamples) (non-finite samples)"), "\(summary.description)")
    }
}
