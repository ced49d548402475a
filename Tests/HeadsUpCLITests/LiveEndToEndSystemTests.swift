import Foundation
import Glibc
import HeadsUpDBus
import HeadsUpTestSupport
import Testing

/// `headsup live` end to end with no hardware: a recorded session played
/// through the emulated IIO kernel, python-dbusmock playing bluetoothd (a
/// walk-by, a bluetoothd restart, a second walk-by) and the desktop
/// notification daemon, all on a private dbus-daemon.
@Suite("headsup live end to end", .serialized)
struct LiveEndToEndSystemTests {
    init() throws {
        try requireCapability(getuid() == 0, "needs root for the emulated IIO kernel's namespaces (CI runs as root)")
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
    }

    static let uuid = "b9407f30-f5f8-466e-aff9-25556b57fe6d"

    /// Two entries into the crossing region with a bluetoothd restart between them.
    static let walk = [
        "{\"at\": 6.0, \"do\": \"device\", \"id\": \"b\", \"ibeacon\": [\"\(uuid)\", 1, 2, -59], \"rssi\": -90}",
        "{\"at\": 7.0, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -80}",
        "{\"at\": 8.0, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -72}",
        "{\"at\": 9.0, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -62}",
        "{\"at\": 9.5, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -61}",
        "{\"at\": 10.0, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -60}",
        "{\"at\": 11.0, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -60}",
        "{\"at\": 12.0, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -90}",
        "{\"at\": 13.0, \"do\": \"restart\"}",
        "{\"at\": 16.0, \"do\": \"device\", \"id\": \"b\", \"ibeacon\": [\"\(uuid)\", 1, 2, -59], \"rssi\": -62}",
        "{\"at\": 16.5, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -61}",
        "{\"at\": 17.0, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -60}",
        "{\"at\": 18.0, \"do\": \"rssi\", \"id\": \"b\", \"rssi\": -60}",
        "{\"at\": 25.0, \"do\": \"noop\"}",
    ]

    static let config = """
        beacons:
          regions: ["crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D:1"]
          enter_rssi: -70
          exit_rssi: -80
          dwell: 0.5
          exit_timeout: 2
          filter: "arma:1"
        warning:
          cooldown: 2
        notifications:
          desktop: true
        """

    struct Outcome {
        var notifies: [[DBusValue]]
        var events: [[String: Any]]
        var log: String
    }

    func run(session: String) throws -> Outcome {
        let bus = try PrivateDBus()
        let directory = try TemporaryDirectory()
        let configFile = try directory.write("config.yaml", Self.config)
        let scenario = try directory.write(
            "walk.json", "{\"steps\": [\n{\"at\": 0, \"do\": \"adapter\", \"powered\": true},\n" + Self.walk.joined(separator: ",\n") + "\n]}")
        let daemon = try MockNotificationDaemon(bus: bus)
        let bluez = try BackgroundProcess(
            PrivateDBus.python, [TestEnvironment.path("Tests/Harness/bluez_scenario.py"), scenario], environment: bus.environment)
        #expect(bluez.wait(for: "READY", timeout: 15), "\(bluez.standardError)")
        var environment = bus.environment
        environment["FAKE_IIO_SESSION"] = TestEnvironment.path("datasets/scenarios/\(session)/session.csv")
        let headsup = TestEnvironment.productsDirectory.appendingPathComponent("headsup").path
        let live = try BackgroundProcess(
            "/bin/bash",
            [
                TestEnvironment.path("Tests/Harness/iio/run_in_fake_kernel.sh"), "--", headsup, "live", "--config", configFile, "--json",
                "--seconds", "22", "--model", TestEnvironment.path("weights/model.h5"),
            ],
            environment: environment)
        #expect(live.wait(for: "discovering on", timeout: 20), "\(live.standardError)")
        bluez.send("go")
        live.finish(timeout: 40)
        bluez.finish(timeout: 20)
        let notifies = try daemon.notifications()
        let events = live.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        return Outcome(notifies: notifies, events: events, log: live.standardError + "\n--- bluez:\n" + bluez.standardError)
    }

    @Test func aDistractedWalkWarnsAtEachEntryEvenAcrossABluetoothdRestart() throws {
        let outcome = try run(session: "crossing-hands")
        let entries = outcome.events.filter { $0["event"] as? String == "enter" }
        #expect(entries.count == 2, "two entries: \(outcome.events.map { $0["event"] as? String ?? "?" })\n\(outcome.log)")
        #expect(outcome.log.contains("bluetoothd (re)started; setting up discovery again"))
        #expect(outcome.notifies.count == 2, "one Notify per entry\n\(outcome.log)")
        for notify in outcome.notifies {
            #expect(notify[3].string == "Beware!")
            #expect(notify[4].string == "You are crossing the road!")
            #expect(notify[0].string == "HeadsUp")
        }
    }

    @Test func theSameWalkWithThePhonePocketedWarnsNever() throws {
        let outcome = try run(session: "crossing-pocket")
        #expect(outcome.events.filter { $0["event"] as? String == "enter" }.count == 2, "\(outcome.log)")
        #expect(outcome.notifies.isEmpty, "\(outcome.notifies)")
        #expect(outcome.events.contains { $0["event"] as? String == "decision" && $0["outcome"] as? String == "not-distracted" })
    }
}
