import Foundation
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

    @Test func unknownKeysAreWarnedAboutAndPartialFilesAreFine() throws {
        let directory = try TemporaryDirectory()
        let explicit = try directory.write("mine.yaml", "warning:\n  colour: red\nmodle: x.h5\n")
        let result = try runHeadsUp(["config", "show", "--config", explicit], environment: try environment(directory))
        #expect(result.status == 0)
        #expect(result.standardError.contains("unknown key 'warning.colour' ignored"))
        #expect(result.standardError.contains("unknown key 'modle' ignored"))
    }

    @Test(arguments: [
        ("warning:\n  cooldown: soon\n", "warning.cooldown: expected a number, found 'soon'"),
        ("warning:\n  proximity: close\n", "warning.proximity: expected one of immediate, near, far, found 'close'"),
        ("windowing:\n  hop: 2.5\n", "windowing.hop: expected a whole number"),
        ("notifications:\n  desktop: maybe\n", "notifications.desktop: expected true or false"),
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
}
