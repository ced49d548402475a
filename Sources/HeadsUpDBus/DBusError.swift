import Glibc

/// A failed D-Bus operation: a connection problem (negative errno from
/// sd-bus) or an error reply from the peer (name and message).
public struct DBusError: Error, Equatable, CustomStringConvertible {
    public var operation: String
    /// The D-Bus error name of an error reply, e.g. org.bluez.Error.NotReady.
    public var name: String?
    public var message: String
    public var errno: Int32?

    public init(operation: String, name: String? = nil, message: String, errno: Int32? = nil) {
        self.operation = operation
        self.name = name
        self.message = message
        self.errno = errno
    }

    static func errno(_ code: Int32, _ operation: String) -> DBusError {
        DBusError(operation: operation, message: String(cString: strerror(abs(code))), errno: abs(code))
    }

    public var description: String {
        if let name { return "\(operation): \(name): \(message)" }
        return "\(operation): \(message)"
    }
}
