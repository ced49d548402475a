import Foundation
import Glibc
import HeadsUpNotify
import HeadsUpTestSupport
import Logging
import Testing

@Suite("MQTT sink against a real mosquitto broker", .serialized)
struct MQTTBrokerSystemTests {
    func requireBroker() throws {
        try requireCapability(MosquittoBroker.unavailableReason == nil, MosquittoBroker.unavailableReason ?? "")
    }

    func configuration(_ broker: MosquittoBroker) throws -> MQTTSink.Configuration {
        var configuration = MQTTSink.Configuration(broker: try MQTTBroker(url: broker.url))
        configuration.clientID = "board1"
        configuration.regions = ["crossing"]
        configuration.scoreInterval = 0
        return configuration
    }

    @Test func announcesItselfPublishesStatesAndWarningsAndSaysGoodbye() throws {
        try requireBroker()
        let broker = try MosquittoBroker()
        let subscriber = try broker.subscribe(["headsup/#", "homeassistant/#"])
        let log = LogRecorder()
        let sink = try MQTTSink(configuration: try configuration(broker), logger: log.logger)
        #expect(subscriber.wait(for: "headsup/board1/availability online", timeout: 10))
        #expect(subscriber.wait(for: "homeassistant/binary_sensor/board1/region_crossing/config", timeout: 5))
        #expect(subscriber.wait(for: "homeassistant/event/board1/warning/config", timeout: 5))
        sink.update(.scored(smoothedScore: 0.91, distracted: true, walking: true, time: 10))
        sink.update(.region(name: "crossing", inside: true, time: 10.5))
        try sink.deliver(sample)
        #expect(subscriber.wait(for: "headsup/board1/distracted ON", timeout: 5))
        #expect(subscriber.wait(for: "headsup/board1/score 0.910", timeout: 5))
        #expect(subscriber.wait(for: "headsup/board1/region/crossing ON", timeout: 5))
        #expect(subscriber.wait(for: "headsup/board1/warning {", timeout: 5))
        let warningLine = try #require(subscriber.standardOutput.split(separator: "\n").first { $0.hasPrefix("headsup/board1/warning ") })
        let warning = try #require(
            try JSONSerialization.jsonObject(with: Data(warningLine.dropFirst("headsup/board1/warning ".count).utf8)) as? [String: Any])
        #expect(warning["event_type"] as? String == "warning")
        #expect(warning["region"] as? String == "crossing")
        #expect(warning["body"] as? String == "You are crossing the road!")
        // A region entered for the first time is announced then.
        sink.update(.region(name: "school gate", inside: true, time: 11))
        #expect(subscriber.wait(for: "homeassistant/binary_sensor/board1/region_school_gate/config", timeout: 5))
        sink.close()
        #expect(subscriber.wait(for: "headsup/board1/availability offline", timeout: 5))
        // States are retained: a dashboard that connects later sees them.
        let late = try runProcess(
            "/usr/bin/mosquitto_sub", ["-h", "127.0.0.1", "-p", String(broker.port), "-t", "headsup/board1/distracted", "-C", "1", "-W", "5"])
        #expect(late.standardOutput == "ON\n")
        subscriber.interrupt()
    }

    @Test func warningsDuringAndAfterABrokerRestartArrive() throws {
        try requireBroker()
        let broker = try MosquittoBroker()
        let subscriber = try broker.subscribe(["headsup/board1/warning"])
        let log = LogRecorder()
        let sink = try MQTTSink(configuration: try configuration(broker), logger: log.logger)
        #expect(eventually { sink.currentHealth.connected })
        var first = sample
        first.body = "before the restart"
        try sink.deliver(first)
        #expect(subscriber.wait(for: "before the restart", timeout: 5))
        broker.stop()
        #expect(eventually { !sink.currentHealth.connected })
        var during = sample
        during.body = "while the broker is down"
        try sink.deliver(during)  // waits in the client's queue, no error
        try broker.start()
        #expect(eventually(20) { sink.currentHealth.connections >= 2 }, "the sink reconnects with backoff")
        var after = sample
        after.body = "after the restart"
        try sink.deliver(after)
        #expect(subscriber.wait(for: "while the broker is down", timeout: 15))
        #expect(subscriber.wait(for: "after the restart", timeout: 15))
        #expect(log.text.contains("connected to \(broker.url) again") || log.text.contains("connected to mqtt://127.0.0.1:\(broker.port) again"))
        sink.close()
        subscriber.interrupt()
    }

    @Test func aWrongPasswordIsAClearErrorAndTheSinkKeepsRetrying() throws {
        try requireBroker()
        let broker = try MosquittoBroker(users: ["headsup": "right"])
        var settings = try configuration(broker)
        settings.username = "headsup"
        settings.password = "wrong"
        let log = LogRecorder()
        let sink = try MQTTSink(configuration: settings, logger: log.logger)
        #expect(eventually(15) { sink.currentHealth.refusals >= 2 }, "it retries after a refusal")
        #expect(!sink.currentHealth.connected)
        let problem = sink.currentHealth.lastProblem ?? ""
        #expect(problem.contains("refused"), "\(problem)")
        #expect(log.text.contains("Check notifications.mqtt.username and notifications.mqtt.password"), "\(log.text)")
        #expect(log.text.components(separatedBy: "refused the connection").count - 1 == 1, "logged once, not per attempt")
        try sink.deliver(sample)  // queued, not thrown: the process goes on
        sink.close()
    }

    @Test func mqttsChecksTheBrokerAgainstTheGivenAuthority() throws {
        try requireBroker()
        let broker = try MosquittoBroker(tls: true)
        let subscriber = try broker.subscribe(["headsup/board1/warning"])
        var settings = try configuration(broker)
        settings.caFile = broker.caFile
        let sink = try MQTTSink(configuration: settings, logger: LogRecorder().logger)
        #expect(eventually { sink.currentHealth.connected }, "\(sink.currentHealth)")
        try sink.deliver(sample)
        #expect(subscriber.wait(for: "headsup/board1/warning {", timeout: 10))
        sink.close()
        // Against the system's authorities the self-made certificate fails, and the log says what to check.
        settings.caFile = nil
        settings.clientID = "board2"
        let log = LogRecorder()
        let untrusting = try MQTTSink(configuration: settings, logger: log.logger)
        // A failed handshake is retried (libmosquitto's own loop would have stopped for good): at 1 s, then 2 s.
        #expect(eventually(15) { untrusting.currentHealth.failures >= 2 }, "\(untrusting.currentHealth)")
        #expect(!untrusting.currentHealth.connected)
        #expect(log.text.contains("TLS handshake"), "\(log.text)")
        #expect(log.text.contains("notifications.mqtt.ca_file"), "\(log.text)")
        untrusting.close()
        subscriber.interrupt()
    }

    /// A board at boot may not resolve `homeassistant.local` yet: the sink
    /// starts anyway, says what to check, and keeps trying.
    @Test func aBrokerNameThatDoesNotResolveIsRetriedNotFatal() throws {
        let broker = MQTTBroker(host: "headsup-no-such-broker.invalid", port: 1883, usesTLS: false)
        var settings = MQTTSink.Configuration(broker: broker)
        settings.clientID = "board1"
        let log = LogRecorder()
        let sink = try MQTTSink(configuration: settings, logger: log.logger)
        #expect(eventually(15) { sink.currentHealth.failures >= 2 }, "\(sink.currentHealth)")
        #expect(log.text.contains("cannot resolve 'headsup-no-such-broker.invalid'"), "\(log.text)")
        #expect(log.text.components(separatedBy: "cannot resolve").count - 1 == 1, "logged once, not per attempt")
        try sink.deliver(sample)  // waits for a connection; the process goes on
        sink.close()
    }

    @Test func settingsThatCannotWorkAreRefusedUpFront() throws {
        var configuration = MQTTSink.Configuration(broker: MQTTBroker(host: "127.0.0.1", port: 1, usesTLS: false))
        configuration.password = "secret"
        #expect(throws: MQTTError.self) { try MQTTSink(configuration: configuration, logger: Logger(label: "test")) }
        configuration.password = nil
        configuration.topicPrefix = "headsup/#"
        #expect(throws: MQTTError.self) { try MQTTSink(configuration: configuration, logger: Logger(label: "test")) }
    }
}
