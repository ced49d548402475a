import Foundation

/// Home Assistant's MQTT discovery: one retained config message per entity
/// at `<discovery prefix>/<component>/<node id>/<object id>/config`, all
/// under one device, all unavailable when the node's availability topic
/// says "offline". Pure: it only builds the messages.
public struct HomeAssistantDiscovery: Sendable {
    public struct Message: Sendable, Equatable {
        public var topic: String
        /// JSON.
        public var payload: String
    }

    public var discoveryPrefix: String
    /// The device's id in Home Assistant: also the MQTT client id.
    public var nodeID: String
    public var deviceName: String
    public var version: String
    public var topics: MQTTTopics

    public init(discoveryPrefix: String, nodeID: String, deviceName: String, version: String, topics: MQTTTopics) {
        self.discoveryPrefix = discoveryPrefix
        self.nodeID = MQTTTopics.slug(nodeID)
        self.deviceName = deviceName
        self.version = version
        self.topics = topics
    }

    /// The entities: distracted, walking, snoozed, the score, one "at the
    /// crossing" sensor per region, warnings as events, and the screen state
    /// (last, so the existing entities keep their order).
    public func messages(regions: [String]) -> [Message] {
        var messages = [
            config(
                "binary_sensor", "distracted", name: "Distracted", state: topics.distracted,
                extra: ["payload_on": "ON", "payload_off": "OFF", "icon": "mdi:cellphone-text"]),
            config(
                "binary_sensor", "walking", name: "Walking", state: topics.walking,
                extra: ["payload_on": "ON", "payload_off": "OFF", "device_class": "moving"]),
            config(
                "binary_sensor", "snoozed", name: "Warnings snoozed", state: topics.snoozed,
                extra: ["payload_on": "ON", "payload_off": "OFF", "icon": "mdi:bell-sleep"]),
            config(
                "sensor", "score", name: "Distraction score", state: topics.score,
                extra: ["state_class": "measurement", "suggested_display_precision": 2, "icon": "mdi:gauge"]),
            config(
                "event", "warning", name: "Crossing warning", state: topics.warning,
                extra: ["event_types": ["warning"], "icon": "mdi:alert"]),
        ]
        messages += regions.map(regionMessage)
        messages.append(
            config(
                "sensor", "screen", name: "Screen", state: topics.screen,
                extra: ["device_class": "enum", "options": ["on", "off", "locked", "idle", "unknown"], "icon": "mdi:cellphone-screenshot"]))
        return messages
    }

    /// The "at the crossing" sensor of one region.
    public func regionMessage(_ region: String) -> Message {
        config(
            "binary_sensor", "region_" + MQTTTopics.slug(region), name: "At \(region)", state: topics.region(region),
            extra: ["payload_on": "ON", "payload_off": "OFF", "device_class": "presence"])
    }

    private func config(_ component: String, _ objectID: String, name: String, state: String, extra: [String: Any]) -> Message {
        var object: [String: Any] = [
            "name": name,
            "unique_id": "\(nodeID)_\(objectID)",
            "object_id": "\(nodeID)_\(objectID)",
            "state_topic": state,
            "availability_topic": topics.availability,
            "payload_available": MQTTTopics.online,
            "payload_not_available": MQTTTopics.offline,
            "device": [
                "identifiers": [nodeID], "name": deviceName, "manufacturer": "HeadsUp", "model": "headsup live", "sw_version": version,
            ] as [String: Any],
        ]
        for (key, value) in extra { object[key] = value }
        return Message(topic: "\(discoveryPrefix)/\(component)/\(nodeID)/\(objectID)/config", payload: SortedJSON.encode(object))
    }
}
