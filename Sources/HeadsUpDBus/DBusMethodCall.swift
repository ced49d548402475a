/// A method call to an object this process exports, as its handler sees it:
/// the arguments already converted to ``DBusValue``s.
public struct DBusMethodCall: Sendable, Equatable {
    public var sender: String?
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]

    public init(sender: String? = nil, path: String, interface: String, member: String, arguments: [DBusValue] = []) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.member = member
        self.arguments = arguments
    }
}

/// What a handler answers to a ``DBusMethodCall``.
public enum DBusMethodOutcome: Sendable, Equatable {
    /// A method return with these arguments.
    case reply([DBusValue])
    /// An error reply: a D-Bus error name and a message.
    case error(name: String, message: String)
    /// Not this handler's call: sd-bus answers it (UnknownMethod, UnknownObject).
    case notHandled
}
