import Foundation
import HeadsUpTestSupport
import Testing

@Suite("headsup evaluate")
struct EvaluateCommandTests {
    /// A folds index over copies of the seed model: fold 0 holds out a test
    /// hands and a test pocket session, fold 1 a training pocket session.
    func folds(_ directory: TemporaryDirectory) throws -> String {
        try FileManager.default.createDirectory(atPath: directory.path("weights/folds"), withIntermediateDirectories: true)
        for file in ["model-fold0.h5", "model-fold1.h5"] {
            try FileManager.default.copyItem(atPath: TestEnvironment.path("weights/seed.h5"), toPath: directory.path("weights/folds/\(file)"))
        }
        try FileManager.default.copyItem(atPath: TestEnvironment.path("weights/seed.json"), toPath: directory.path("weights/model.json"))
        let index = """
            {"format": "headsup-cv-folds", "model": "model.h5", "folds": [
              {"fold": 0, "file": "model-fold0.h5", "held_out": ["data_sensors_data_3", "data_sensors_data_4"]},
              {"fold": 1, "file": "model-fold1.h5", "held_out": ["data_sensors_data_18"]}]}
            """
        return try directory.write("weights/folds/folds.json", index)
    }

    /// `--carry` adds a carry-positions folder's sessions and prints the
    /// per-position table; a missing folder is an error that names the option.
    @Test func carryAddsTheCarrySetAndItsPositionTable() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("carry/sessions"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: TestEnvironment.path("datasets/phone-motion-v1/sessions/data_sensors_data_4.csv"),
            toPath: directory.path("carry/sessions/Pixel_A_Hard_Purse_1_0.csv"))
        let manifest = TestEnvironment.path("datasets/phone-motion-v1/manifest.json")
        let run = try runHeadsUp(["evaluate", "--carry", "--carry-dataset", directory.path("carry"), "--manifest", manifest])
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("Pixel_A_Hard_Purse_1_0"))
        #expect(run.standardOutput.contains("by carry position"))
        #expect(run.standardOutput.contains("\npurse "))
        #expect(run.standardOutput.contains("\nunspecified "))

        let missing = try runHeadsUp(["evaluate", "--carry", "--carry-dataset", directory.path("none"), "--manifest", manifest])
        #expect(missing.status != 0)
        #expect(missing.standardError.contains("--carry-dataset"))
    }

    @Test func foldModelsAreJudgedOnTheSessionsTheyNeverSawPooled() throws {
        let directory = try TemporaryDirectory()
        let index = try folds(directory)
        let output = directory.path("folds.json.out")
        let manifest = TestEnvironment.path("datasets/phone-motion-v1/manifest.json")
        let all = try runHeadsUp(["evaluate", "--folds", index, "--manifest", manifest, "--json", output])
        #expect(all.status == 0, "\(all.standardError)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any])
        let sessions = (report["sessions"] as? [[String: Any]] ?? []).compactMap { $0["session"] as? String }
        #expect(Set(sessions) == ["data_sensors_data_3", "data_sensors_data_4", "data_sensors_data_18"])
        // The shipped model's card applies to every fold model.
        #expect(report["threshold"] as? Double == 0.5)
        // One splice: fold 0's pocket session into its hands session.
        #expect((report["splices"] as? [String: Any])?["splices"] as? Int == 1)
        #expect(all.standardOutput.contains("spliced pocket → hands transitions: 1"))

        let train = try runHeadsUp(["evaluate", "--folds", index, "--manifest", manifest, "--split", "train", "--json", output])
        #expect(train.status == 0, "\(train.standardError)")
        let trainReport = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any])
        #expect((trainReport["sessions"] as? [[String: Any]])?.compactMap { $0["session"] as? String } == ["data_sensors_data_18"])
    }

    /// Every bundled session is a walk: the walking gate's share of each
    /// session's windows is reported (table and JSON) and is high.
    @Test func eachSessionsWalkingShareIsReported() throws {
        let directory = try TemporaryDirectory()
        let output = directory.path("report.json")
        let result = try runHeadsUp(["evaluate", "--json", output])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.split(separator: "\n").first { $0.hasPrefix("session") }?.hasSuffix("walking") == true)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any])
        let sessions = try #require(report["sessions"] as? [[String: Any]])
        #expect(sessions.count == 4)
        for session in sessions {
            let share = try #require(session["walkingFraction"] as? Double)
            #expect(share >= 0.75 && share <= 1, "\(session["session"] ?? "?"): \(share)")
        }
    }

    @Test func aFoldNamingAnUnknownSessionIsAClearError() throws {
        let directory = try TemporaryDirectory()
        _ = try folds(directory)
        let index = try directory.write(
            "weights/folds/folds.json",
            #"{"format": "headsup-cv-folds", "model": "model.h5", "folds": [{"fold": 0, "file": "model-fold0.h5", "held_out": ["no_such_session"]}]}"#
        )
        let result = try runHeadsUp(["evaluate", "--folds", index, "--manifest", TestEnvironment.path("datasets/phone-motion-v1/manifest.json")])
        #expect(result.status != 0)
        #expect(result.standardError.contains("fold 0: no session no_such_session"), "\(result.standardError)")
    }
}
