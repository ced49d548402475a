import Foundation
import Glibc
import HeadsUpDBus
import HeadsUpTestSupport
import Testing

/// `headsup live --simulate` reading the screen from a private session bus
/// as a real run does (python-dbusmock's gnome_screensaver template plays
/// Phosh's): with warning.only_while_screen_on the hands walk warns with the
/// screen on and not with it blanked; blanking mid-warning ends Debian's
/// real feedbackd's buzz.
@Suite("The screen gate end to end", .serialized)
struct ScreenGateSystemTests {
    func environment(_ bus: PrivateDBus, _ directory: TemporaryDirectory) -> [String: String] {
        var environment = bus.environment
        environment["HEADSUP_CONTROL_SOCKET"] = directory.path("control")
        environment["XDG_STATE_HOME"] = directory.path("state")
        environment["XDG_CONFIG_HOME"] = directory.path("config")
        environment.removeValue(forKey: "XDG_SESSION_ID")
        return environment
    }

    func live(gate: String, blanked: Bool) throws -> ProcessOutput {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let saver = try MockScreenService(.gnomeScreenSaver, bus: bus)
        if blanked { try saver.setActive(true) }
        let directory = try TemporaryDirectory()
        let config = try directory.write("config.yaml", "warning:\n  only_while_screen_on: \(gate)\nnotifications:\n  feedback: false\n")
        return try runHeadsUp(
            [
                "live", "--simulate", "crossing-hands", "--speed", "8", "--json", "--no-desktop", "--config", config, "--model",
                TestEnvironment.path("weights/model.h5"),
            ], environment: environment(bus, directory))
    }

    @Test func theHandsWalkWarnsWithTheScreenOnAndNotBlanked() throws {
        let on = try live(gate: "true", blanked: false)
        #expect(on.status == 0, "\(on.standardError)")
        #expect(on.standardOutput.components(separatedBy: "\"event\":\"warning\"").count == 2, "one warning: \(on.standardOutput.suffix(1500))")
        #expect(on.standardOutput.contains("\"event\":\"screen\""), "the screen's state is in the JSON lines")

        let blanked = try live(gate: "true", blanked: true)
        #expect(blanked.status == 0, "\(blanked.standardError)")
        #expect(!blanked.standardOutput.contains("\"event\":\"warning\""), "\(blanked.standardOutput.suffix(1500))")
        #expect(blanked.standardOutput.contains("\"outcome\":\"screen-off\""))
        #expect(blanked.standardOutput.contains("\"state\":\"off\""))
    }

    @Test func withTheGateOffItWarnsOnMotionAlone() throws {
        let result = try live(gate: "false", blanked: true)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.components(separatedBy: "\"event\":\"warning\"").count == 2, "\(result.standardOutput.suffix(1500))")
        #expect(!result.standardOutput.contains("\"event\":\"screen\""), "the gate off: no screen source is asked")
    }

    @Test func blankingMidWarningEndsTheBuzz() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        try requireCapability(Feedbackd.unavailableReason == nil, Feedbackd.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let feedbackd = try Feedbackd(bus: bus)
        let saver = try MockScreenService(.gnomeScreenSaver, bus: bus)
        let directory = try TemporaryDirectory()
        let config = try directory.write(
            "config.yaml", "notifications:\n  feedback_event: long-warning\n  feedback_timeout: 30\n")
        let environment = environment(bus, directory)
        let headsup = TestEnvironment.productsDirectory.appendingPathComponent("headsup").path
        let job = try BackgroundProcess(
            headsup,
            [
                "live", "--simulate", "crossing-hands", "--speed", "4", "--json", "--no-desktop", "--config", config, "--model",
                TestEnvironment.path("weights/model.h5"),
            ], environment: environment)
        defer { job.killAbruptly() }
        #expect(job.wait(for: "\"event\":\"warning\"", timeout: 30), "\(job.standardError)")
        #expect(eventually { feedbackd.log.contains("Event 'long-warning' for 'headsup'") }, "the warning buzzes: \(feedbackd.log)")
        #expect(!feedbackd.log.contains("Ending feedback for event '1'"))
        try saver.setActive(true)
        #expect(eventually(10) { feedbackd.log.contains("Ending feedback for event '1'") }, "blanking ends the buzz: \(feedbackd.log)")
        #expect(job.wait(for: "\"state\":\"off\"", timeout: 10))
        // The walk goes on for some seconds after the warning: the running job answers.
        let status = try runHeadsUp(["status"], environment: environment)
        #expect(status.status == 0, "\(status.standardError)")
        #expect(status.standardOutput.contains("  screen: off ("), "\(status.standardOutput)")
        #expect(status.standardOutput.contains("GNOME/Phosh screen saver: off"), "\(status.standardOutput)")
        #expect(status.standardOutput.contains("logind session: no answer"), "\(status.standardOutput)")
        #expect(job.standardError.contains("the warning's vibration and banner end"), "\(job.standardError)")
    }
}
