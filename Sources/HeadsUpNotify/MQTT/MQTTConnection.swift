import CMosquitto
import Foundation
import HeadsUpSystem

/// One libmosquitto client: the only file that calls libmosquitto. It
/// connects on its own thread, reconnects with exponential backoff (1 s
/// doubling to `maximumReconnectDelay`) whatever ended the last attempt,
/// and tells its owner when the broker accepts, refuses or drops it, or
/// an attempt fails. QoS 1 messages published while the broker is away
/// wait in libmosquitto's queue and go out on reconnect.
final class MQTTConnection: @unchecked Sendable {
    struct Options: Sendable {
        var broker: MQTTBroker
        var clientID: String
        var username: String?
        var password: String?
        /// Certificate authorities for mqtts (a PEM file); nil uses the system's.
        var caFile: String?
        var keepAlive: Int32 = 30
        /// Seconds between attempts: 1 s, doubling up to this.
        var maximumReconnectDelay: Double = 30
        /// The last will: what the broker publishes when the client vanishes.
        var will: (topic: String, payload: String)?
    }

    /// What the broker said; the owner logs it and republishes on `.accepted`.
    enum Event: Sendable {
        case accepted
        case refused(String)
        case dropped(String)
        /// An attempt that failed before the broker answered: a name that
        /// does not resolve, a broker that cannot be reached, a TLS
        /// handshake that failed. Worded with what to check.
        case failed(String)
    }

    private let library: MosquittoLibrary
    private var api: headsup_mosquitto { library.api }
    private let handle: OpaquePointer
    private let options: Options
    private let onEvent: @Sendable (Event) -> Void
    private let lock = MonotonicCondition()
    // Guarded by `lock`.
    private var inFlight: Set<Int32> = []
    private var connected = false
    private var running = false
    private var threadFinished = true
    /// Set by the callbacks during one attempt: whether the broker answered
    /// (so the attempt's end is reported as a refusal or a drop, not a
    /// failure), and the last error libmosquitto logged (its TLS details).
    private var brokerAnswered = false
    private var loggedError: String?

    init(options: Options, onEvent: @escaping @Sendable (Event) -> Void) throws(MQTTError) {
        let library = try MosquittoLibrary.loaded.get()
        let api = library.api
        guard let handle = api.mosquitto_new!(options.clientID, true, nil) else {
            throw .library("mosquitto_new", "could not create a client (client id '\(options.clientID)')")
        }
        self.library = library
        self.handle = handle
        self.options = options
        self.onEvent = onEvent
        do throws(MQTTError) {
            try check(api.mosquitto_int_option!(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311), "protocol version")
            // This class runs the network loop on its own thread (libmosquitto's would stop for good after a TLS or name-lookup error).
            try check(api.mosquitto_threaded_set!(handle, true), "threading")
            if let username = options.username {
                try check(api.mosquitto_username_pw_set!(handle, username, options.password), "username")
            }
            if let will = options.will {
                try check(api.mosquitto_will_set!(handle, will.topic, Int32(will.payload.utf8.count), will.payload, 1, true), "last will")
            }
            if options.broker.usesTLS {
                let capath = options.caFile == nil ? "/etc/ssl/certs" : nil
                try check(api.mosquitto_tls_set!(handle, options.caFile, capath, nil, nil, nil), "TLS (notifications.mqtt.ca_file)")
            }
        } catch {
            api.mosquitto_destroy!(handle)
            throw error
        }
        api.mosquitto_user_data_set!(handle, Unmanaged.passUnretained(self).toOpaque())
        api.mosquitto_connect_callback_set!(handle) { _, context, code in
            MQTTConnection.from(context).connected(code: code)
        }
        api.mosquitto_disconnect_callback_set!(handle) { _, context, code in
            MQTTConnection.from(context).disconnected(code: code)
        }
        api.mosquitto_publish_callback_set!(handle) { _, context, messageID in
            MQTTConnection.from(context).acknowledged(messageID)
        }
        api.mosquitto_log_callback_set!(handle) { _, context, level, text in
            guard level & MOSQ_LOG_ERR != 0, let text else { return }
            MQTTConnection.from(context).logged(String(cString: text))
        }
    }

    deinit {
        stop()
        api.mosquitto_destroy!(handle)
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MQTTConnection {
        Unmanaged<MQTTConnection>.fromOpaque(context!).takeUnretainedValue()
    }

    /// Starts the network thread, which connects and keeps reconnecting.
    /// Nothing about the broker is an error here: a broker that is down, a
    /// name that does not resolve yet (a board at boot), a certificate that
    /// fails (a clock not yet set) are retried with backoff and reported.
    func start() {
        lock.lock()
        guard !running else { return lock.unlock() }
        running = true
        threadFinished = false
        lock.unlock()
        let thread = Thread { [self] in runNetworkLoop() }
        thread.name = "MQTT"
        thread.start()
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
        let code = api.mosquitto_publish!(handle, &messageID, topic, Int32(payload.utf8.count), payload, qos, retain)
        if qos > 0, code == MOSQ_ERR_SUCCESS.rawValue || code == MOSQ_ERR_NO_CONN.rawValue { inFlight.insert(messageID) }
        switch code {
        case MOSQ_ERR_SUCCESS.rawValue: return true
        case MOSQ_ERR_NO_CONN.rawValue where qos > 0: return false  // queued by libmosquitto
        default: throw .library("publishing to \(topic)", library.describe(code))
        }
    }

    /// Waits up to `timeout` seconds for the broker to acknowledge every QoS 1 message.
    @discardableResult
    func waitForAcknowledgements(timeout: Double) -> Bool {
        let deadline = SystemMonotonicClock().now() + timeout
        lock.lock()
        defer { lock.unlock() }
        while !inFlight.isEmpty, lock.wait(until: deadline) {}
        return inFlight.isEmpty
    }

    /// Disconnects cleanly (the broker does not send the will) and waits
    /// for the network thread to end.
    func stop() {
        lock.lock()
        let wasRunning = running
        running = false
        lock.broadcast()
        lock.unlock()
        guard wasRunning else { return }
        // Wakes the loop (libmosquitto's internal pipe) and sends DISCONNECT if connected.
        _ = api.mosquitto_disconnect!(handle)
        // A name lookup cannot be interrupted: after 5 s the thread is left
        // to end by itself (it holds this object until then).
        let deadline = SystemMonotonicClock().now() + 5
        lock.lock()
        while !threadFinished, lock.wait(until: deadline) {}
        lock.unlock()
    }

    private func check(_ code: Int32, _ what: String) throws(MQTTError) {
        guard code == MOSQ_ERR_SUCCESS.rawValue else { throw .library(what, library.describe(code)) }
    }

    // MARK: The network loop (its own thread)

    /// Connect, serve the connection until it ends, report why, wait, and
    /// again, until `stop`. The wait starts at 1 s and doubles up to
    /// `maximumReconnectDelay`; a connection the broker accepted resets it.
    private func runNetworkLoop() {
        var delay = 1.0
        var attempts = 0
        while isRunning {
            lock.lock()
            brokerAnswered = false
            loggedError = nil
            lock.unlock()
            let host = options.broker.host
            var code =
                attempts == 0
                ? api.mosquitto_connect_async!(handle, host, Int32(options.broker.port), options.keepAlive)
                : api.mosquitto_reconnect_async!(handle)
            var error = errno
            attempts += 1
            if code == MOSQ_ERR_SUCCESS.rawValue {
                repeat {
                    code = api.mosquitto_loop!(handle, 1000, 1)
                    error = errno
                } while code == MOSQ_ERR_SUCCESS.rawValue && isRunning
            }
            guard isRunning else { break }
            lock.lock()
            let answered = brokerAnswered
            let detail = loggedError
            lock.unlock()
            if answered {
                delay = 1  // the callbacks reported the refusal or the lost connection
            } else {
                onEvent(.failed(failure(code, errno: error, detail: detail)))
            }
            waitBeforeRetrying(delay)
            delay = min(delay * 2, options.maximumReconnectDelay)
        }
        lock.lock()
        threadFinished = true
        lock.broadcast()
        lock.unlock()
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return running
    }

    private func waitBeforeRetrying(_ seconds: Double) {
        let deadline = SystemMonotonicClock().now() + seconds
        lock.lock()
        while running, lock.wait(until: deadline) {}
        lock.unlock()
    }

    /// Why an attempt failed, in words, with what the user can check.
    private func failure(_ code: Int32, errno error: Int32, detail: String?) -> String {
        let broker = options.broker
        switch code {
        case MOSQ_ERR_EAI.rawValue:
            return "cannot resolve '\(broker.host)' (check notifications.mqtt.url and the network's name service)"
        case MOSQ_ERR_ERRNO.rawValue:
            return "cannot reach \(broker): \(String(cString: strerror(error)))"
        case MOSQ_ERR_TLS.rawValue:
            let why = detail.map { ": \($0)" } ?? ""
            return "the TLS handshake with \(broker) failed\(why) (check notifications.mqtt.ca_file and the board's clock)"
        default:
            return "\(broker): \(library.describe(code))\(detail.map { " (\($0))" } ?? "")"
        }
    }

    // MARK: Callbacks (libmosquitto calls them on the network thread)

    private func connected(code: Int32) {
        lock.lock()
        connected = code == 0
        brokerAnswered = true
        lock.unlock()
        onEvent(code == 0 ? .accepted : .refused(library.describeRefusal(code)))
    }

    /// Also called after a refusal; only a connection that was up is "dropped".
    private func disconnected(code: Int32) {
        lock.lock()
        let wasConnected = connected
        connected = false
        lock.unlock()
        if code != 0, wasConnected { onEvent(.dropped("lost the connection to \(options.broker)")) }
    }

    /// libmosquitto's own error text (OpenSSL's reason for a failed handshake).
    private func logged(_ text: String) {
        lock.lock()
        loggedError = text
        lock.unlock()
    }

    private func acknowledged(_ messageID: Int32) {
        lock.lock()
        inFlight.remove(messageID)
        lock.broadcast()
        lock.unlock()
    }
}
