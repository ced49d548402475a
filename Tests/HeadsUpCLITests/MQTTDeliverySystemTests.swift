import Foundation
import HeadsUpTestSupport
import Testing

/// `headsup replay --deliver` and `headsup live` with an MQTT broker in the
/// configuration, against Debian's real mosquitto on loopback.
@Suite("MQTT and Home Assistant from the command line", .serialized)
struct MQTTDeliverySystemTests {
    func config(_ broker: MosquittoBroker, in directory: TemporaryDirectory) throws -> String {
        try directory.write(
            "config.yaml",
            """
            notifications:
              desktop: false
              mqtt:
                url: \(broker.url)
                client_id: board1
                score_interval: 0
            """)
    }

    @Test func replayDeliversTheWarningAndTheStatesToTheBroker() throws {
        try requireCapability(MosquittoBroker.unavailableReason == nil, MosquittoBroker.unavailableReason ?? "")
        let broker = try MosquittoBroker()
        let subscriber = try broker.subscribe(["headsup/#", "homeassistant/#"])
        let directory = try TemporaryDirectory()
        let result = try runHeadsUp([
            "replay", TestEnvironment.path("datasets/scenarios/crossing-hands"), "--json", "--deliver", "--config", try config(broker, in: directory),
            "--model", TestEnvironment.path("weights/model.h5"),
        ])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(subscriber.wait(for: "headsup/board1/availability offline", timeout: 10), "\(broker.log)")
        let lines = subscriber.standardOutput.split(separator: "\n").map(String.init)
        func first(_ prefix: String) -> Int? { lines.firstIndex { $0.hasPrefix(prefix) } }
        #expect(first("homeassistant/binary_sensor/board1/region_crossing/config") != nil, "the scenario's region is announced")
        #expect(first("homeassistant/binary_sensor/board1/distracted/config") != nil)
        let distracted = try #require(first("headsup/board1/distracted ON"))
        let inside = try #require(first("headsup/board1/region/crossing ON"))
        let warning = try #require(first("headsup/board1/warning {"))
        #expect(distracted < warning && inside < warning, "the states come before the warning they explain")
        #expect(lines.filter { $0.hasPrefix("headsup/board1/warning ") }.count == 1)
        #expect(lines[warning].contains("\"region\":\"crossing\""))
        #expect(lines.contains { $0.hasPrefix("headsup/board1/score 0.") })
        subscriber.interrupt()
    }

    @Test func aLiveJobThatVanishesIsMarkedOfflineByItsLastWill() throws {
        try requireCapability(MosquittoBroker.unavailableReason == nil, MosquittoBroker.unavailableReason ?? "")
        let broker = try MosquittoBroker()
        let subscriber = try broker.subscribe(["headsup/board1/availability"])
        let directory = try TemporaryDirectory()
        let live = try BackgroundProcess(
            TestEnvironment.productsDirectory.appendingPathComponent("headsup").path,
            [
                "live", "--simulate", "crossing-hands", "--json", "--config", try config(broker, in: directory), "--model",
                TestEnvironment.path("weights/model.h5"),
            ],
            environment: ProcessInfo.processInfo.environment)
        #expect(subscriber.wait(for: "headsup/board1/availability online", timeout: 20), "\(live.standardError)")
        live.killAbruptly()
        live.finish(timeout: 10)
        #expect(subscriber.wait(for: "headsup/board1/availability offline", timeout: 10), "\(broker.log)")
        subscriber.interrupt()
    }

    /// A wrong password: the job says what to check once and still warns
    /// through its other sinks (JSON lines here); that the sink keeps
    /// retrying is MQTTSinkTests' part.
    @Test func aLiveJobWithAWrongPasswordKeepsWarning() throws {
        try requireCapability(MosquittoBroker.unavailableReason == nil, MosquittoBroker.unavailableReason ?? "")
        let broker = try MosquittoBroker(users: ["headsup": "right"])
        let directory = try TemporaryDirectory()
        let config = try directory.write(
            "config.yaml",
            """
            notifications:
              desktop: false
              json: \(directory.path("warnings.jsonl"))
              mqtt:
                url: \(broker.url)
                client_id: board1
                username: headsup
                password: wrong
            """)
        _ = chmod(config, 0o600)  // it holds a secret
        var environment = TestEnvironment.awayFromTheDesktop()
        environment["HEADSUP_CONTROL_SOCKET"] = directory.path("control")
        environment["XDG_STATE_HOME"] = directory.path("state")
        let result = try runHeadsUp(
            [
                "live", "--simulate", "crossing-hands", "--speed", "8", "--json", "--config", config, "--model",
                TestEnvironment.path("weights/model.h5"),
            ],
            environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("\"event\":\"warning\""), "the job warned")
        let delivered = (try? String(contentsOfFile: directory.path("warnings.jsonl"), encoding: .utf8)) ?? ""
        #expect(delivered.contains("You are crossing the road"), "the JSON sink got the warning: \(result.standardError)")
        #expect(result.standardError.contains("Check notifications.mqtt.username and notifications.mqtt.password"), "\(result.standardError)")
        #expect(result.standardError.components(separatedBy: "refused the connection").count - 1 == 1, "said once, retried quietly")
    }
}
