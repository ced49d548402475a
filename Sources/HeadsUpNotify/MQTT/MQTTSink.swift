import Foundation
import Logging

/// Publishes warnings and the job's state to an MQTT broker, and announces
/// them to Home Assistant by MQTT discovery. States are retained, so a
/// dashboard that connects later sees the current ones; warnings go at
/// QoS 1 and wait for a broker that is away. The broker's last will marks
/// HeadsUp offline if the process vanishes; a clean stop says so itself.
public final class MQTTSink: NotificationSink, @unchecked Sendable {
    public struct Configuration: Sendable, Equatable {
        public var broker: MQTTBroker
        public var username: String?
        public var password: String?
        /// Also the Home Assistant node id. Unset: `headsup-<hostname>`.
        public var clientID: String?
        /// Unset: `headsup/<client id>`.
        public var topicPrefix: String?
        /// Where Home Assistant listens for discovery; nil publishes none.
        public var discoveryPrefix: String? = Self.defaultDiscoveryPrefix
        /// PEM file of the certificate authorities for mqtts; unset: the system's.
        public var caFile: String?
        /// Seconds between score messages: a score every window would flood a dashboard's history.
        public var scoreInterval = Self.defaultScoreInterval
        /// Regions to announce at once; others are announced when first entered.
        public var regions: [String] = []
        /// For the device entry in Home Assistant.
        public var version = "unknown"

        public init(broker: MQTTBroker) { self.broker = broker }

        public static let defaultDiscoveryPrefix = "homeassistant"
        public static let defaultScoreInterval = 5.0

        public var resolvedClientID: String { clientID ?? "headsup-" + MQTTTopics.slug(Self.hostname()) }
        public var topics: MQTTTopics { MQTTTopics(prefix: topicPrefix ?? "headsup/" + MQTTTopics.slug(resolvedClientID)) }

        static func hostname() -> String {
            var buffer = [CChar](repeating: 0, count: 256)
            guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
            return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// How the connection has gone, for `headsup status` and tests.
    public struct Health: Sendable, Equatable {
        public var connected = false
        public var connections = 0
        public var refusals = 0
        public var drops = 0
        /// Attempts that failed before the broker answered (unreachable, a
        /// name that does not resolve, a TLS handshake that failed).
        public var failures = 0
        /// The last refusal or drop, worded for the user.
        public var lastProblem: String?
    }

    public let name = "mqtt"
    public let mirrorsState = true
    public let configuration: Configuration
    private let topics: MQTTTopics
    private let discovery: HomeAssistantDiscovery?
    private let logger: Logger
    private var connection: MQTTConnection!
    private let lock = NSLock()
    // Guarded by `lock`: the latest states, republished on every (re)connection.
    private var retained: [String: String] = [:]
    private var announcedRegions: Set<String> = []
    private var lastScoreTime: Double?
    private var health = Health()
    private var closed = false

    /// Validates the settings and starts connecting in the background; a
    /// broker that is down is retried, not an error.
    public init(configuration: Configuration, logger: Logger) throws(MQTTError) {
        self.configuration = configuration
        self.logger = logger
        let topics = configuration.topics
        self.topics = topics
        guard !topics.prefix.isEmpty, !topics.prefix.contains("#"), !topics.prefix.contains("+") else {
            throw .badSetting("notifications.mqtt.topic_prefix '\(topics.prefix)' must be non-empty, without # or +")
        }
        if configuration.password != nil, configuration.username == nil {
            throw .badSetting("notifications.mqtt.password is set without notifications.mqtt.username")
        }
        discovery = configuration.discoveryPrefix.map {
            HomeAssistantDiscovery(
                discoveryPrefix: $0, nodeID: configuration.resolvedClientID, deviceName: "HeadsUp \(configuration.resolvedClientID)",
                version: configuration.version, topics: topics)
        }
        announcedRegions = Set(configuration.regions)
        for region in configuration.regions { retained[topics.region(region)] = MQTTTopics.onOff(false) }
        let options = MQTTConnection.Options(
            broker: configuration.broker, clientID: configuration.resolvedClientID, username: configuration.username,
            password: configuration.password, caFile: configuration.caFile, will: (topics.availability, MQTTTopics.offline))
        // The connection outlives nothing it calls: `close` (or deinit) stops its thread first.
        let relay = EventRelay()
        connection = try MQTTConnection(options: options) { event in relay.target?.handle(event) }
        relay.target = self
        connection.start()
    }

    public var currentHealth: Health {
        lock.lock()
        defer { lock.unlock() }
        return health
    }

    public func deliver(_ notification: NotificationMessage) throws {
        var object: [String: Any] = ["event_type": "warning", "title": notification.title, "body": notification.body, "time": notification.time]
        for (key, value) in notification.fields { object[key] = value }
        do {
            if try !connection.publish(topics.warning, SortedJSON.encode(object), qos: 1, retain: false) {
                logger.notice("mqtt: \(configuration.broker) is not connected; the warning waits and goes out on reconnection")
            }
        } catch {
            throw SinkError(sink: name, message: "\(error)")
        }
    }

    public func update(_ state: StateUpdate) {
        var changes: [(String, String)] = []
        var newRegion: String?
        lock.lock()
        func set(_ topic: String, _ value: String) {
            guard retained[topic] != value else { return }
            retained[topic] = value
            changes.append((topic, value))
        }
        switch state {
        case .scored(let score, let distracted, let walking, let time):
            set(topics.distracted, MQTTTopics.onOff(distracted))
            set(topics.walking, MQTTTopics.onOff(walking))
            if lastScoreTime.map({ time - $0 >= configuration.scoreInterval || time < $0 }) ?? true {
                lastScoreTime = time
                set(topics.score, String(format: "%.3f", score))
            }
        case .distracted(let distracted, _):
            set(topics.distracted, MQTTTopics.onOff(distracted))
        case .region(let region, let inside, _):
            if announcedRegions.insert(region).inserted { newRegion = region }
            set(topics.region(region), MQTTTopics.onOff(inside))
        case .snoozed(let until):
            set(topics.snoozed, MQTTTopics.onOff(until != nil))
        case .screen(let state, _):
            set(topics.screen, state)
        }
        lock.unlock()
        if let newRegion, let discovery {
            let message = discovery.regionMessage(newRegion)
            publishRetained(message.topic, message.payload)
        }
        for (topic, value) in changes { publishRetained(topic, value) }
    }

    /// Flushes the QoS 1 messages, marks HeadsUp offline and disconnects.
    public func close() {
        lock.lock()
        let wasClosed = closed
        closed = true
        lock.unlock()
        guard !wasClosed else { return }
        if !connection.waitForAcknowledgements(timeout: 3) {
            logger.warning("mqtt: \(configuration.broker) did not acknowledge every warning before the stop")
        }
        if connection.isConnected {
            publishRetained(topics.availability, MQTTTopics.offline)
            connection.waitForAcknowledgements(timeout: 2)
        }
        connection.stop()
    }

    deinit { connection?.stop() }

    /// Hands the connection's events to the sink without a reference cycle.
    private final class EventRelay: @unchecked Sendable {
        weak var target: MQTTSink?
    }

    private func publishRetained(_ topic: String, _ payload: String) {
        do { try connection.publish(topic, payload, qos: 1, retain: true) } catch { logger.warning("mqtt: \(error)") }
    }

    /// On the network thread: (re)announce everything on each connection,
    /// since a restarted broker may have lost its retained messages.
    private func handle(_ event: MQTTConnection.Event) {
        lock.lock()
        switch event {
        case .accepted:
            health.connected = true
            health.connections += 1
        case .refused(let why):
            health.connected = false
            health.refusals += 1
            health.lastProblem = "\(configuration.broker) refused the connection: \(why)"
        case .dropped(let why):
            health.connected = false
            health.drops += 1
            health.lastProblem = why
        case .failed(let why):
            health.failures += 1
            health.lastProblem = why
        }
        let current = health
        let states = retained
        let regions = announcedRegions.sorted()
        lock.unlock()
        switch event {
        case .accepted:
            if current.connections > 1 { logger.notice("mqtt: connected to \(configuration.broker) again") }
            publishRetained(topics.availability, MQTTTopics.online)
            for message in discovery?.messages(regions: regions) ?? [] { publishRetained(message.topic, message.payload) }
            for (topic, value) in states.sorted(by: { $0.key < $1.key }) { publishRetained(topic, value) }
        case .refused(let why):
            // Once, then every tenth attempt: the loop retries with backoff up to 30 s.
            if current.refusals % 10 == 1 {
                logger.error(
                    "mqtt: \(configuration.broker) refused the connection (\(why)). Check notifications.mqtt.username and notifications.mqtt.password; retrying with backoff"
                )
            }
        case .dropped(let why):
            if current.drops % 10 == 1 { logger.warning("mqtt: \(why); reconnecting with backoff") }
        case .failed(let why):
            if current.failures % 10 == 1 {
                logger.error("mqtt: \(why); retrying with backoff")
            }
        }
    }
}
