import Foundation
import HeadsUpTestSupport
import Testing

@Suite("headsup replay")
struct ReplayTests {
    func replay(_ scenario: String) throws -> ProcessOutput {
        try runHeadsUp(["replay", TestEnvironment.path("datasets/scenarios/\(scenario)"), "--json", "--model", TestEnvironment.path("weights/model.h5"), "--no-desktop"])
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
