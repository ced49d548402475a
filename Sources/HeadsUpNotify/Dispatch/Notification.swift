/// A warning as the sinks deliver it: title, body and the evidence.
public struct NotificationMessage: Sendable, Equatable {
    public var title: String
    public var body: String
    /// Seconds (the pipeline's clock).
    public var time: Double
    /// Region, beacon, RSSI, score…: ordered key–value pairs for JSON and the environment.
    public var fields: [(String, String)]

    public init(title: String, body: String, time: Double, fields: [(String, String)] = []) {
        self.title = title
        self.body = body
        self.time = time
        self.fields = fields
    }

    public static func == (lhs: NotificationMessage, rhs: NotificationMessage) -> Bool {
        lhs.title == rhs.title && lhs.body == rhs.body && lhs.time == rhs.time
            && lhs.fields.map { $0.0 + "=" + $0.1 } == rhs.fields.map { $0.0 + "=" + $0.1 }
    }
}

/// Somewhere a warning goes. `deliver` may block up to its own timeout; the
/// ``NotificationDispatcher`` calls it off the pipeline's thread.
public protocol NotificationSink: AnyObject {
    var name: String { get }
    func deliver(_ notification: NotificationMessage) throws
    /// Whether the sink wants `update`s; the dispatcher queues none for sinks that do not.
    var mirrorsState: Bool { get }
    /// Mirrors what the job is doing (MQTT keeps Home Assistant's entities
    /// current); most sinks only deliver warnings and ignore it.
    func update(_ state: StateUpdate)
    /// The user has seen the warning (dismissed or snoozed it): stop what
    /// still demands attention (the phone's vibration, the banner).
    func acknowledge()
    /// The job is stopping: flush, say goodbye, let go of connections.
    func close()
}

extension NotificationSink {
    public var mirrorsState: Bool { false }
    public func update(_ state: StateUpdate) {}
    public func acknowledge() {}
    public func close() {}
}

/// A sink failure with what to do about it.
public struct SinkError: Error, CustomStringConvertible {
    public var sink: String
    public var message: String
    public init(sink: String, message: String) {
        self.sink = sink
        self.message = message
    }
    public var description: String { "\(sink): \(message)" }
}
