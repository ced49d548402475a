import Foundation
import Glibc
import HeadsUpTestSupport
import Testing

/// Bad input through the command line, each case one that crashed, hung or
/// misled before (an adversarial pass of 2026-11-26): a clear error or a
/// note, never a trap or a hang.
@Suite("Bad input through the command line")
struct BadInputTests {
    let session = TestEnvironment.path("datasets/scenarios/crossing-hands/session.csv")
    let beacons = TestEnvironment.path("datasets/scenarios/crossing-hands/beacons.csv")
    let model = TestEnvironment.path("weights/model.h5")

    /// The crossing-hands session with row `row`'s timestamp replaced.
    func session(in directory: TemporaryDirectory, row: Int, timestamp: String) throws -> String {
        var lines = try String(contentsOfFile: session, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var fields = lines[row].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        fields[1] = timestamp
        lines[row] = fields.joined(separator: ",")
        return try directory.write("session-\(row).csv", lines.joined(separator: "\n"))
    }

    @Test(.timeLimit(.minutes(1)))
    func aWildTimestampNeitherHangsTheReplayNorPassesUnsaid() throws {
        let directory = try TemporaryDirectory()
        for (row, timestamp) in [(1000, "2559326773.0"), (101, "1e40")] {
            let file = try session(in: directory, row: row, timestamp: timestamp)
            let result = try runHeadsUp(["replay", file, "--beacons", beacons, "--model", model, "--no-desktop"])
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.contains("samples dropped for times that go back or that no clock gives"), "\(result.standardError)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aSightingBeyondAnyClockIsNamed() throws {
        let directory = try TemporaryDirectory()
        let text = try String(contentsOfFile: beacons, encoding: .utf8) + "1e300,ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:7,-70,-59\n"
        let file = try directory.write("beacons.csv", text)
        let result = try runHeadsUp(["replay", session, "--beacons", file, "--model", model, "--no-desktop"])
        #expect(result.status != 0)
        #expect(
            result.standardError.contains("time '1e300' is not a number of seconds from the session's start, 0 to 1e14"), "\(result.standardError)")
    }

    @Test func aBeaconFileWithWindowsLineEndsAndAByteOrderMarkReplaysAlike() throws {
        let directory = try TemporaryDirectory()
        let text = try String(contentsOfFile: beacons, encoding: .utf8)
        let windows = try directory.write("windows.csv", "\u{FEFF}" + text.replacingOccurrences(of: "\n", with: "\r\n"))
        let plain = try runHeadsUp(["replay", session, "--beacons", beacons, "--model", model, "--no-desktop", "--json"])
        let converted = try runHeadsUp(["replay", session, "--beacons", windows, "--model", model, "--no-desktop", "--json"])
        #expect(converted.status == 0, "\(converted.standardError)")
        #expect(converted.standardOutput == plain.standardOutput)
    }

    @Test func aModelForOtherInputIsRefusedBeforeTheFirstWindow() throws {
        let other = TestEnvironment.path("Tests/Fixtures/keras/gru_tfkeras_h5/model.h5")
        let result = try runHeadsUp(["replay", session, "--beacons", beacons, "--model", other, "--no-desktop"])
        #expect(result.status == 1 && result.terminationSignal == nil, "\(result.status) \(result.standardError)")
        #expect(result.standardError.contains("\(other): the model takes input [20, 5] (100 values); HeadsUp scores windows of 50 samples"))
    }

    @Test func aDirectoryGivenAsTheModelIsNamedAsOne() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("model.h5"), withIntermediateDirectories: true)
        for command in [["model", "inspect", directory.path("model.h5")], ["model", "check", directory.path("model.h5")]] {
            let result = try runHeadsUp(command)
            #expect(result.status == 1 && result.terminationSignal == nil, "\(command): \(result.status) \(result.standardError)")
            #expect(result.standardError.contains("model.h5: not a Keras model file: is a directory"), "\(result.standardError)")
        }
    }

    @Test func theReportGoesThroughASymlinkAndNeverOverADirectory() throws {
        let directory = try TemporaryDirectory()
        let target = try directory.write("target.html", "old")
        try FileManager.default.createSymbolicLink(atPath: directory.path("link.html"), withDestinationPath: target)
        let written = try runHeadsUp(["evaluate", session, "--model", model, "--report", directory.path("link.html")])
        #expect(written.status == 0, "\(written.standardError)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory.path("link.html")) == target, "the link stays a link")
        #expect(try String(contentsOfFile: target, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
        let refused = try runHeadsUp(["evaluate", session, "--model", model, "--report", directory.path("")])
        #expect(refused.status == 1)
        #expect(refused.standardError.contains("is a directory; give a file name"), "\(refused.standardError)")
    }

    @Test func aReportIntoAPipeIsWrittenNotRenamedOver() throws {
        let directory = try TemporaryDirectory()
        let pipe = directory.path("report.fifo")
        #expect(mkfifo(pipe, 0o600) == 0)
        // A reader holds the pipe open and drains it while evaluate writes.
        let reader = Thread {
            let descriptor = open(pipe, O_RDONLY)
            guard descriptor >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while read(descriptor, &buffer, buffer.count) > 0 {}
            close(descriptor)
        }
        reader.start()
        let result = try runHeadsUp(["evaluate", session, "--model", model, "--report", pipe])
        #expect(result.status == 0, "\(result.standardError)")
        var status = stat()
        #expect(stat(pipe, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "still a pipe")
    }

    @Test func nothingToEvaluateIsAnError() throws {
        let directory = try TemporaryDirectory()
        let empty = try directory.write("empty.csv", "mode,timestamp,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z,mag_x,mag_y,mag_z\n")
        let result = try runHeadsUp(["evaluate", empty, "--model", model])
        #expect(result.status == 1)
        #expect(result.standardError.contains("no windows to evaluate in \(empty)"), "\(result.standardError)")
    }

    @Test(arguments: [
        ("notifications:\n  webhook: ftp://127.0.0.1/x\n", "notifications.webhook: 'ftp://127.0.0.1/…(redacted)' is not an http(s) URL"),
        ("notifications:\n  mqtt:\n    url: mqtt://host:0\n", "notifications.mqtt.url: 'mqtt://host:0' is not a broker URL"),
    ])
    func configShowRefusesWhatTheSinksWouldRefuse(yaml: String, message: String) throws {
        let directory = try TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["HEADSUP_SYSTEM_CONFIG_DIR"] = directory.path("etc")
        environment["XDG_CONFIG_HOME"] = directory.path("xdg")
        let file = try directory.write("sinks.yaml", yaml)
        #expect(chmod(file, 0o600) == 0, "a webhook is a secret: the file must not be world-readable")
        let result = try runHeadsUp(["config", "show", "--config", file], environment: environment)
        #expect(result.status == 1)
        #expect(result.standardError.contains("\(file): \(message)"), "\(result.standardError)")
    }

    @Test(arguments: [
        (["model", "bench", "--batch", "0"], "--batch takes 1 to 65,536 windows"),
        (["model", "bench", "--iterations=-5"], "--iterations takes 1 to 10,000,000 calls"),
        (["evaluate", "--settle", "1e300"], "--settle takes 0 to 3600 seconds"),
        (["dataset", "windows", "x.csv", "--length", "100000000000"], "--length takes 1 to 100,000 samples"),
        (["live", "--seconds", "nan"], "--seconds takes a number of seconds > 0"),
        (["record", "--label", "1", "--out", "x.csv", "--duration=-1"], "--duration takes seconds > 0"),
        (["record", "--label", "bag", "--out", "walk.json"], "the sidecar NAME.json goes beside it; name the session NAME.csv"),
        (["record", "--label", "desk", "--out", "x.csv"], "swinging-arm"),
    ])
    func outOfRangeFlagsAreRefusedBeforeTheyRun(arguments: [String], message: String) throws {
        let withModel = arguments.first == "model" ? arguments + ["--model", model] : arguments
        let result = try runHeadsUp(withModel)
        #expect(result.terminationSignal == nil && result.status != 0, "\(arguments): \(result.status)")
        #expect(result.standardError.contains(message), "\(arguments): \(result.standardError)")
    }

    /// The four inputs that killed the process with SIGILL (2026-11-28):
    /// each is now an error naming the file, its line where it has one, and the key.
    @Test(arguments: [
        ("beacons.dwell: 1:0:0:0:0:0:0:0:0:0:0\n", ":1: beacons.dwell: 1:0:0:0:0:0:0:0:0:0:0 is YAML's base-60 number form"),
        ("beacons:\n  dwell: 1:30\n", ":2: beacons.dwell: 1:30 is YAML's base-60 number form"),
        ("beacons.filter: \"trimmed:1e300:0.1\"\n", ": beacons.filter: trimmed:1e300:0.1: "),
        ("beacons.filter: \"trimmed:inf:0.1\"\n", ": beacons.filter: trimmed:inf:0.1: "),
    ])
    func settingsThatTrappedAreErrorsNamingTheirKey(yaml: String, message: String) throws {
        let directory = try TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["HEADSUP_SYSTEM_CONFIG_DIR"] = directory.path("etc")
        environment["XDG_CONFIG_HOME"] = directory.path("xdg")
        let file = try directory.write("config.yaml", yaml)
        let result = try runHeadsUp(["config", "show", "--config", file, "--model", model], environment: environment)
        #expect(result.terminationSignal == nil && result.status == 1, "\(yaml): \(result.status) \(result.standardError.suffix(500))")
        #expect(result.standardError.contains(file + message), "\(result.standardError.suffix(500))")
    }

    @Test(.timeLimit(.minutes(1)))
    func aSnoozeRecordBeyondAnyClockIsRefusedNotTrappedOn() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path("state/headsup"), withIntermediateDirectories: true)
        let record = try directory.write("state/headsup/snooze.json", #"{"since": 1000, "until": 1e300}"#)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = directory.path("state")
        environment["HEADSUP_CONTROL_SOCKET"] = directory.path("control")
        environment["HEADSUP_SYSTEM_CONFIG_DIR"] = directory.path("etc")
        environment["XDG_CONFIG_HOME"] = directory.path("xdg")
        let result = try runHeadsUp(
            ["live", "--simulate", "crossing-hands", "--speed", "50", "--seconds", "2", "--json", "--no-desktop", "--model", model],
            environment: environment)
        #expect(result.terminationSignal == nil && result.status == 0, "\(result.status) \(result.standardError.suffix(800))")
        #expect(result.standardError.contains("\(record): not a snooze HeadsUp could have saved"), "\(result.standardError.suffix(800))")
        #expect(result.standardError.contains("delete it to clear the snooze"))
    }
}
