import Foundation
import Glibc
import HeadsUpTestSupport
import Testing

@Suite("headsup config show")
struct ConfigCommandTests {
    /// An environment whose /etc/headsup and $XDG_CONFIG_HOME are temporary folders.
    func environment(_ directory: TemporaryDirectory) throws -> [String: String] {
        try FileManager.default.createDirectory(atPath: directory.path("etc"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.path("xdg/headsup"), withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["HEADSUP_SYSTEM_CONFIG_DIR"] = directory.path("etc")
        environment["XDG_CONFIG_HOME"] = directory.path("xdg")
        return environment
    }

    func row(_ output: String, _ key: String) -> [String] {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix(key + " ") }) else { return [] }
        return line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    }

    @Test func layersDefaultsSystemUserFileAndFlagsAndSaysWhereEachCameFrom() throws {
        let directory = try TemporaryDirectory()
        let environment = try environment(directory)
        try directory.write("etc/config.yaml", "warning:\n  cooldown: 60\n  check_interval: 4\nbeacons:\n  dwell: 2\n")
        try directory.write("xdg/headsup/config.yaml", "warning:\n  cooldown: 45\n")
        let explicit = try directory.write("mine.yaml", "beacons:\n  dwell: 3\n  regions:\n    - crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D\n")
        let result = try runHeadsUp(["config", "show", "--config", explicit, "--hop", "10"], environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        let out = result.standardOutput
        #expect(row(out, "warning.check_interval") == ["warning.check_interval", "4", directory.path("etc/config.yaml")])
        #expect(row(out, "warning.cooldown") == ["warning.cooldown", "45", directory.path("xdg/headsup/config.yaml")])
        #expect(row(out, "beacons.dwell") == ["beacons.dwell", "3", explicit])
        #expect(row(out, "windowing.hop") == ["windowing.hop", "10", "command", "line"])
        #expect(row(out, "warning.title") == ["warning.title", "Beware!", "default"])
        #expect(out.contains("crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D"))
    }

    /// A sensitivity preset shifts the card's values (README, Sensitivity),
    /// a key the file sets wins, and each value names where it came from.
    @Test func aSensitivityPresetShowsAsTheSourceOfWhatItShifts() throws {
        // The shipped card's values (retraining changes them), shifted as the presets say.
        let card = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: TestEnvironment.path("weights/model.json"))))
        let decision = try #require((card as? [String: Any])?["decision"] as? [String: Any])
        let threshold = try #require(decision["threshold"] as? Double)
        let minimumDuration = try #require(decision["minimum_duration"] as? Double)
        let timeConstant = try #require(decision["time_constant"] as? Double)
        func shown(_ x: Double) -> String {
            let rounded = (x * 1000).rounded() / 1000
            return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        }
        let directory = try TemporaryDirectory()
        let environment = try environment(directory)
        let high = try directory.write("high.yaml", "warning:\n  sensitivity: high\ndistraction:\n  time_constant: 1\n")
        let raised = try runHeadsUp(["config", "show", "--config", high], environment: environment)
        #expect(raised.status == 0, "\(raised.standardError)")
        #expect(
            row(raised.standardOutput, "distraction.enter_threshold") == [
                "distraction.enter_threshold", shown(threshold - 0.1), "sensitivity", "high",
            ])
        #expect(row(raised.standardOutput, "warning.proximity") == ["warning.proximity", "far", "sensitivity", "high"])
        #expect(row(raised.standardOutput, "distraction.time_constant") == ["distraction.time_constant", "1", high])
        let low = try directory.write("low.yaml", "warning:\n  sensitivity: low\n")
        let lowered = try runHeadsUp(["config", "show", "--config", low], environment: environment)
        #expect(
            row(lowered.standardOutput, "distraction.enter_threshold") == [
                "distraction.enter_threshold", shown(threshold + 0.1), "sensitivity", "low",
            ])
        #expect(
            row(lowered.standardOutput, "distraction.time_constant") == [
                "distraction.time_constant", shown(timeConstant * 1.5), "sensitivity", "low",
            ])
        #expect(
            row(lowered.standardOutput, "distraction.minimum_duration") == [
                "distraction.minimum_duration", shown(minimumDuration + 0.5), "sensitivity", "low",
            ])
        #expect(row(lowered.standardOutput, "warning.proximity") == ["warning.proximity", "immediate", "sensitivity", "low"])
        let normal = try runHeadsUp(["config", "show"], environment: environment)
        #expect(
            row(normal.standardOutput, "distraction.enter_threshold").prefix(4) == ["distraction.enter_threshold", shown(threshold), "model", "card"])
    }

    @Test func unknownKeysAreWarnedAboutAndPartialFilesAreFine() throws {
        let directory = try TemporaryDirectory()
        let explicit = try directory.write("mine.yaml", "warning:\n  colour: red\nmodle: x.h5\n")
        let result = try runHeadsUp(["config", "show", "--config", explicit], environment: try environment(directory))
        #expect(result.status == 0)
        #expect(result.standardError.contains("unknown key 'warning.colour' ignored"))
        #expect(result.standardError.contains("unknown key 'modle' ignored"))
    }

    @Test(arguments: [
        ("warning:\n  cooldown: soon\n", "warning.cooldown: soon: expected a number from 0 to 86400"),
        ("warning:\n  cooldown: -5\n", "warning.cooldown: -5: out of range: expected a number from 0 to 86400"),
        ("warning:\n  proximity: close\n", "warning.proximity: close: expected one of immediate, near, far"),
        ("windowing:\n  hop: 2.5\n", "windowing.hop: 2.5: expected a whole number from 1 to 250"),
        ("notifications:\n  desktop: maybe\n", "notifications.desktop: maybe: expected true or false"),
        ("- just\n- a list\n", "the top level must be a mapping of keys"),
        ("warning: [unclosed\n", "not valid YAML"),
    ])
    func aBadValueNamesTheKeyAndTheFile(yaml: String, message: String) throws {
        let directory = try TemporaryDirectory()
        let explicit = try directory.write("bad.yaml", yaml)
        let result = try runHeadsUp(["config", "show", "--config", explicit], environment: try environment(directory))
        #expect(result.status != 0)
        #expect(result.standardError.contains(explicit), "\(result.standardError)")
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }

    @Test func theModelCardSitsBetweenTheDefaultsAndTheFiles() throws {
        let directory = try TemporaryDirectory()
        let mine = try directory.write("mine.yaml", "distraction:\n  time_constant: 2\n")
        let fromCard = try runHeadsUp(["config", "show"], environment: try environment(directory))
        #expect(fromCard.status == 0, "\(fromCard.standardError)")
        #expect(row(fromCard.standardOutput, "distraction.enter_threshold").last?.hasSuffix("weights/model.json") == true)
        let overridden = try runHeadsUp(["config", "show", "--config", mine, "--threshold", "0.7"], environment: try environment(directory))
        #expect(row(overridden.standardOutput, "distraction.enter_threshold") == ["distraction.enter_threshold", "0.7", "command", "line"])
        #expect(row(overridden.standardOutput, "distraction.time_constant") == ["distraction.time_constant", "2", mine])
    }

    @Test func aWebhookTokenIsNeverShown() throws {
        let directory = try TemporaryDirectory()
        let explicit = try directory.write("secret.yaml", "notifications:\n  webhook: https://hooks.example.org/services/T0KEN/S3CRET?key=abc\n")
        chmod(explicit, 0o640)
        let result = try runHeadsUp(["config", "show", "--config", explicit], environment: try environment(directory))
        #expect(result.status == 0, "\(result.standardError)")
        #expect(!(result.standardOutput + result.standardError).contains("S3CRET"))
        #expect(!(result.standardOutput + result.standardError).contains("key=abc"))
        #expect(row(result.standardOutput, "notifications.webhook").dropFirst().first == "https://hooks.example.org/…(redacted)")
    }

    @Test func aSecretInAFileEveryUserCanReadIsRefused() throws {
        let directory = try TemporaryDirectory()
        let explicit = try directory.write("secret.yaml", "notifications:\n  webhook: https://hooks.example.org/T0KEN\n")
        chmod(explicit, 0o644)
        let refused = try runHeadsUp(["config", "show", "--config", explicit], environment: try environment(directory))
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("\(explicit): notifications.webhook: holds a secret but every user can read the file"))
        #expect(!refused.standardError.contains("T0KEN"))
        chmod(explicit, 0o600)
        let accepted = try runHeadsUp(["config", "show", "--config", explicit], environment: try environment(directory))
        #expect(accepted.status == 0, "\(accepted.standardError)")
    }
}
