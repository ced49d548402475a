import CMosquitto
import Foundation

/// One libmosquitto client: the only file that calls libmosquitto. It
/// connects in the background, reconnects with exponential backoff (1 s
/// doubling to `maximumReconnectDelay`), and tells its owner when the
/// broker accepts, refuses or drops it. QoS 1 messages published while
/// the broker is away wait in libmosquitto's queue and go out on reconnect.
final class MQTTConnection: @unchecked Sendable {
    struct Options: Sendable {
        var broker: MQTTBroker
        var clientID: String
        var username: String?
        var password: String?
        /// Certificate authorities for mqtts (a PEM file); nil uses the system's.
        var caFile: String?
        var keepAlive: Int32 = 30
        var maximumReconnectDelay: UInt32 = 30
        /// The last will: what the broker publishes when the client vanishes.
        var will: (topic: String, payload: String)?
    }

    /// What the broker said; the owner logs it and republishes on `.accepted`.
    enum Event: Sendable {
        case accepted
        case refused(String)
        case dropped(String)
        /// libmosquitto's own error log: a TLS handshake that failed, a
        /// broker that cannot be reached on a retry.
        case failed(String)
    }

    private static let libraryReady: Void = { mosquitto_lib_init() }()

    private let handle: OpaquePointer
    private let options: Options
    private let onEvent: @Sendable (Event) -> Void
    private let lock = NSCondition()
    private var inFlight: Set<Int32> = []
    private var connected = false
    private var running = false

    init(options: Options, onEvent: @escaping @Sendable (Event) -> Void) throws(MQTTError) {
        _ = Self.libraryReady
        guard let handle = mosquitto_new(options.clientID, true, nil) else {
            throw .library("mosquitto_new", "could not create a client (client id '\(options.clientID)')")
        }
        self.handle = handle
        self.options = options
        self.onEvent = onEvent
        do throws(MQTTError) {
            try check(mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311), "protocol version")
            if let username = options.username {
                try check(mosquitto_username_pw_set(handle, username, options.password), "username")
            }
            if let will = options.will {
                try check(mosquitto_will_set(handle, will.topic, Int32(will.payload.utf8.count), will.payload, 1, true), "last will")
            }
            if options.broker.usesTLS {
                let capath = options.caFile == nil ? "/etc/ssl/certs" : nil
                try check(mosquitto_tls_set(handle, options.caFile, capath, nil, nil, nil), "TLS (notifications.mqtt.ca_file)")
            }
            try check(mosquitto_reconnect_delay_set(handle, 1, options.maximumReconnectDelay, true), "reconnect delay")
        } catch {
            mosquitto_destroy(handle)
            throw error
        }
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(handle) { _, context, code in
            MQTTConnection.from(context).connected(code: code)
        }
        mosquitto_disconnect_callback_set(handle) { _, context, code in
            MQTTConnection.from(context).disconnected(code: code)
        }
        mosquitto_publish_callback_set(handle) { _, context, messageID in
            MQTTConnection.from(context).acknowledged(messageID)
        }
        mosquitto_log_callback_set(handle) { _, context, level, text in
            guard level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0, let text else { return }
            MQTTConnection.from(context).onEvent(.failed(String(cString: text)))
        }
    }

    deinit {
        stop()
        mosquitto_destroy(handle)
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MQTTConnection {
        Unmanaged<MQTTConnection>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Starts connecting and the network thread. A broker that is down is
    /// not an error here: the thread keeps trying. A host that does not
    /// resolve, or settings libmosquitto rejects, are.
    func start() throws(MQTTError) {
        let code = mosquitto_connect_async(handle, options.broker.host, Int32(options.broker.port), options.keepAlive)
        switch code {
        case MOSQ_ERR_SUCCESS.rawValue: break
        case MOSQ_ERR_ERRNO.rawValue:
            // Refused or unreachable now; the loop retries with backoff.
            onEvent(.dropped("cannot reach \(options.broker): \(String(cString: strerror(errno)))"))
        default:
            throw .library("connecting to \(options.broker)", String(cString: mosquitto_strerror(code)))
        }
        try check(mosquitto_loop_start(handle), "starting the network thread")
        lock.lock()
        running = true
        lock.unlock()
    }

    var isConnected: Bool {
        lock.lock()
        defer { lock.unlock() }
        return connected
    }

    /// Publishes; QoS 1 messages are tracked until the broker acknowledges
    /// them. Returns false when the message waits for a reconnect.
    @discardableResult
    func publish(_ topic: String, _ payload: String, qos: Int32, retain: Bool) throws(MQTTError) -> Bool {
        var messageID: Int32 = 0
        // The lock spans the call so the acknowledgement cannot come before the id is recorded.
        lock.lock()
        defer { lock.unlock() }
        let code = mosquitto_publish(handle, &messageID, topic, Int32(payload.utf8.count), payload, qos, retain)
        if qos > 0, code == MOSQ_ERR_SUCCESS.rawValue || code == MOSQ_ERR_NO_CONN.rawValue { inFlight.insert(messageID) }
        switch code {
        case MOSQ_ERR_SUCCESS.rawValue: return true
        case MOSQ_ERR_NO_CONN.rawValue where qos > 0: return false  // queued by libmosquitto
        default: throw .library("publishing to \(topic)", String(cString: mosquitto_strerror(code)))
        }
    }

    /// Waits up to `timeout` seconds for the broker to acknowledge every QoS 1 message.
    @discardableResult
    func waitForAcknowledgements(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !inFlight.isEmpty, lock.wait(until: deadline) {}
        return inFlight.isEmpty
    }

    /// Disconnects cleanly (the broker does not send the will) and stops the thread.
    func stop() {
        lock.lock()
        let wasRunning = running
        running = false
        lock.unlock()
        guard wasRunning else { return }
        mosquitto_disconnect(handle)
        mosquitto_loop_stop(handle, false)
    }

    private func check(_ code: Int32, _ what: String) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw .library(what, String(cString: mosquitto_strerror(code))) }
    }

    // MARK: Callbacks (on libmosquitto's network thread)

    private func connected(code: Int32) {
        lock.lock()
        connected = code == 0
        lock.unlock()
        onEvent(code == 0 ? .accepted : .refused(String(cString: mosquitto_connack_string(code))))
    }

    /// Also called after a refusal; only a connection that was up is "dropped".
    private func disconnected(code: Int32) {
        lock.lock()
        let wasConnected = connected
        connected = false
        lock.unlock()
        if code != 0, wasConnected { onEvent(.dropped("lost the connection to \(options.broker)")) }
    }

    private func acknowledged(_ messageID: Int32) {
        lock.lock()
        inFlight.remove(messageID)
        lock.broadcast()
        lock.unlock()
    }
}
