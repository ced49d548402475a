import Foundation
import Glibc
import HeadsUpDBus
import HeadsUpTestSupport
import Testing

/// The live job on the hands walk with a notification daemon (dbusmock) and
/// Debian's real feedbackd on a private session bus: the warning buzzes, the
/// notification's Snooze button silences it, `headsup status` shows the
/// snooze, and a restarted job keeps it.
@Suite("Snooze from the notification, status, and a restart", .serialized)
struct SnoozeEndToEndSystemTests {
    @Test func theSnoozeButtonStopsTheBuzzAndOutlastsARestart() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        try requireCapability(Feedbackd.unavailableReason == nil, Feedbackd.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let feedbackd = try Feedbackd(bus: bus)
        let notifications = try MockNotificationDaemon(bus: bus)

        let directory = try TemporaryDirectory()
        let config = try directory.write(
            "config.yaml", "notifications:\n  feedback_event: long-warning\n  feedback_timeout: 30\n")
        var environment = bus.environment
        environment["HEADSUP_CONTROL_SOCKET"] = directory.path("control")
        environment["XDG_STATE_HOME"] = directory.path("state")
        let headsup = TestEnvironment.productsDirectory.appendingPathComponent("headsup").path
        let arguments = [
            "live", "--simulate", "crossing-hands", "--speed", "8", "--json", "--config", config, "--model", TestEnvironment.path("weights/model.h5"),
        ]

        let first = try BackgroundProcess(headsup, arguments, environment: environment)
        #expect(first.wait(for: "\"event\":\"warning\"", timeout: 30), "\(first.standardError)")
        #expect(eventually { feedbackd.log.contains("Event 'long-warning' for 'headsup'") }, "the warning buzzes: \(feedbackd.log)")
        #expect(eventually { (try? notifications.notifications().count) == 1 })
        // The user presses "Snooze 30 min" on notification 1.
        try notifications.emit("ActionInvoked", signature: "us", [.uint32(1), .string("snooze")])
        #expect(eventually(10) { feedbackd.log.contains("Ending feedback for event '1'") }, "the buzz stops: \(feedbackd.log)")
        let status = try runHeadsUp(["status", "--json"], environment: environment)
        #expect(status.status == 0, "\(status.standardError)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.standardOutput.utf8)) as? [String: Any])
        let until = try #require(object["snoozedUntil"] as? Double)
        #expect(abs(until - Date().timeIntervalSince1970 - 1800) < 60)
        first.finish(timeout: 30)

        // A new run of the job: still snoozed, so the same walk gives a "snoozed" decision and no warning.
        let second = try runHeadsUp(arguments, environment: environment)
        #expect(second.status == 0, "\(second.standardError)")
        #expect(second.standardOutput.contains("\"outcome\":\"snoozed\""), "\(second.standardOutput.suffix(2000))")
        #expect(!second.standardOutput.contains("\"event\":\"warning\""))
        #expect(second.standardError.contains("warnings stay snoozed until"))
        let resume = try runHeadsUp(["snooze", "off"], environment: environment)
        #expect(resume.status != 0 && resume.standardError.contains("Is `headsup live` running?"), "no daemon now: \(resume.standardError)")
    }

    /// `headsup snooze 10m`, `headsup status` and `headsup snooze off`
    /// against a running job, over its control socket.
    @Test func snoozeAndResumeFromTheCommandLine() throws {
        let directory = try TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["HEADSUP_CONTROL_SOCKET"] = directory.path("control")
        environment["XDG_STATE_HOME"] = directory.path("state")
        environment["XDG_CONFIG_HOME"] = directory.path("config")
        let headsup = TestEnvironment.productsDirectory.appendingPathComponent("headsup").path
        let job = try BackgroundProcess(
            headsup, ["live", "--simulate", "crossing-pocket", "--speed", "1", "--json", "--no-desktop"], environment: environment)
        defer { job.killAbruptly() }
        #expect(eventually(20) { FileManager.default.fileExists(atPath: directory.path("control")) }, "\(job.standardError)")

        let snooze = try runHeadsUp(["snooze", "10m"], environment: environment)
        #expect(snooze.status == 0, "\(snooze.standardError)")
        #expect(snooze.standardOutput.hasPrefix("Warnings snoozed until "), "\(snooze.standardOutput)")
        let snoozed = try runHeadsUp(["status", "--json"], environment: environment)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(snoozed.standardOutput.utf8)) as? [String: Any])
        let until = try #require(object["snoozedUntil"] as? Double)
        #expect(abs(until - Date().timeIntervalSince1970 - 600) < 30)
        #expect(FileManager.default.fileExists(atPath: directory.path("state/headsup/snooze.json")), "kept for a restart")

        let resume = try runHeadsUp(["snooze", "off"], environment: environment)
        #expect(resume.status == 0, "\(resume.standardError)")
        #expect(resume.standardOutput == "Warnings are on.\n")
        let on = try runHeadsUp(["status", "--json"], environment: environment)
        let after = try #require(try JSONSerialization.jsonObject(with: Data(on.standardOutput.utf8)) as? [String: Any])
        #expect(after["snoozedUntil"] == nil || after["snoozedUntil"] is NSNull, "\(on.standardOutput)")

        let refused = try runHeadsUp(["snooze", "9d"], environment: environment)
        #expect(refused.status != 0, "longer than a week: \(refused.standardOutput)")
        #expect(job.standardError.contains("warnings snoozed until") && job.standardError.contains("snooze ended by request"), "\(job.standardError)")
    }
}
