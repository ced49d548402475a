/// The topics HeadsUp publishes under its prefix, and the payloads that
/// are not JSON. One place, so the sink, Home Assistant's discovery
/// messages and the README agree.
public struct MQTTTopics: Sendable, Equatable {
    public let prefix: String

    public init(prefix: String) { self.prefix = prefix }

    /// "online" while connected; the broker's last will sets "offline".
    public var availability: String { prefix + "/availability" }
    public var distracted: String { prefix + "/distracted" }
    public var walking: String { prefix + "/walking" }
    public var score: String { prefix + "/score" }
    public var snoozed: String { prefix + "/snoozed" }
    /// on, off, locked, idle or unknown: whether the phone is in use.
    public var screen: String { prefix + "/screen" }
    /// Each warning as JSON, QoS 1, not retained (an event, not a state).
    public var warning: String { prefix + "/warning" }
    /// "ON" while the user is at the crossing the region marks.
    public func region(_ name: String) -> String { prefix + "/region/" + Self.slug(name) }

    public static let online = "online"
    public static let offline = "offline"
    public static func onOff(_ flag: Bool) -> String { flag ? "ON" : "OFF" }

    /// A name fit for a topic level and a Home Assistant object id:
    /// letters, digits, `_` and `-`; everything else becomes `_`.
    public static func slug(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        let mapped = String(name.map { allowed.contains($0) ? $0 : "_" })
        return mapped.isEmpty ? "_" : mapped
    }
}
