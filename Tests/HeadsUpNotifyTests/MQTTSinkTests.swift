import Foundation
import Glibc
import HeadsUpNotify
import HeadsUpTestSupport
import Logging
import Testing

/// Log lines kept for the test to read.
final class LogRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return lines.joined(separator: "\n")
    }
    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }
    var logger: Logger {
        Logger(label: "test") { _ in RecordingHandler(recorder: self) }
    }

    struct RecordingHandler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { recorder.append("\(event.level): \(event.message)") }
    }
}

@Suite("MQTT: topics, discovery and URLs")
struct MQTTPureTests {
    @Test func brokerURLs() throws {
        #expect(try MQTTBroker(url: "mqtt://board.local") == MQTTBroker(host: "board.local", port: 1883, usesTLS: false))
        #expect(try MQTTBroker(url: "mqtts://broker.example:8884/") == MQTTBroker(host: "broker.example", port: 8884, usesTLS: true))
        #expect(try MQTTBroker(url: "mqtt://[::1]:1884") == MQTTBroker(host: "::1", port: 1884, usesTLS: false))
        for bad in ["http://x", "mqtt://", "mqtt://h:0", "mqtt://h:99999", "mqtt://u:p@h", "mqtt://h/topic", "mqtt://h:port"] {
            #expect(throws: MQTTError.self, "\(bad)") { try MQTTBroker(url: bad) }
        }
        #expect(throws: MQTTError.badURL("mqtt://u:p@h", "put the user name and password in notifications.mqtt.username and .password")) {
            try MQTTBroker(url: "mqtt://u:p@h")
        }
    }

    @Test func homeAssistantDiscoveryNamesEveryEntityUnderOneDevice() throws {
        let topics = MQTTTopics(prefix: "headsup/board 1")
        let discovery = HomeAssistantDiscovery(
            discoveryPrefix: "homeassistant", nodeID: "board 1", deviceName: "HeadsUp board", version: "1.2", topics: topics)
        let messages = discovery.messages(regions: ["main st", "school"])
        #expect(
            messages.map(\.topic) == [
                "homeassistant/binary_sensor/board_1/distracted/config", "homeassistant/binary_sensor/board_1/walking/config",
                "homeassistant/binary_sensor/board_1/snoozed/config", "homeassistant/sensor/board_1/score/config",
                "homeassistant/event/board_1/warning/config", "homeassistant/binary_sensor/board_1/region_main_st/config",
                "homeassistant/binary_sensor/board_1/region_school/config", "homeassistant/sensor/board_1/screen/config",
            ])
        let screen = try #require(try JSONSerialization.jsonObject(with: Data(messages[7].payload.utf8)) as? [String: Any])
        #expect(screen["state_topic"] as? String == "headsup/board 1/screen")
        #expect(screen["device_class"] as? String == "enum")
        #expect(screen["options"] as? [String] == ["on", "off", "locked", "idle", "unknown"])
        let region = try #require(try JSONSerialization.jsonObject(with: Data(messages[5].payload.utf8)) as? [String: Any])
        #expect(region["state_topic"] as? String == "headsup/board 1/region/main_st")
        #expect(region["availability_topic"] as? String == "headsup/board 1/availability")
        #expect(region["unique_id"] as? String == "board_1_region_main_st")
        #expect(region["device_class"] as? String == "presence")
        #expect((region["device"] as? [String: Any])?["identifiers"] as? [String] == ["board_1"])
        let event = try #require(try JSONSerialization.jsonObject(with: Data(messages[4].payload.utf8)) as? [String: Any])
        #expect(event["event_types"] as? [String] == ["warning"])
        #expect(Set(messages.map(\.topic)).count == messages.count)
    }
}
