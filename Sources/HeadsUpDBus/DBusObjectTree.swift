/// The objects a process exports under one root path and their
/// properties, and the standard interfaces answered from them: the root's
/// `org.freedesktop.DBus.ObjectManager.GetManagedObjects` and every
/// object's `org.freedesktop.DBus.Properties.Get`/`GetAll`. Pure: calls in,
/// outcomes out, so what a peer such as bluetoothd reads is tested without
/// a bus. Properties are read-only (a peer never sets ours).
public struct DBusObjectTree: Sendable, Equatable {
    public static let objectManager = "org.freedesktop.DBus.ObjectManager"
    public static let properties = "org.freedesktop.DBus.Properties"

    /// The path the ObjectManager answers on; every object lies below it.
    public let root: String
    /// Path → interface → property name → value.
    public private(set) var objects: [String: [String: [String: DBusValue]]] = [:]

    public init(root: String) {
        self.root = root
    }

    /// Adds or replaces `interface` on `path` with these properties.
    public mutating func set(path: String, interface: String, properties: [String: DBusValue]) {
        objects[path, default: [:]][interface] = properties
    }

    public mutating func remove(path: String) {
        objects[path] = nil
    }

    /// The answer to a standard call, or `.notHandled` for any other.
    public func answer(_ call: DBusMethodCall) -> DBusMethodOutcome {
        switch (call.interface, call.member) {
        case (Self.objectManager, "GetManagedObjects") where call.path == root:
            return .reply([managedObjects])
        case (Self.properties, "GetAll"):
            guard let interface = call.arguments.first?.string else { return Self.invalidArguments(call, expected: "s") }
            guard let properties = objects[call.path]?[interface] else {
                return .error(name: "org.freedesktop.DBus.Error.UnknownInterface", message: "\(call.path) has no interface \(interface)")
            }
            return .reply([Self.dictionary(properties)])
        case (Self.properties, "Get"):
            guard call.arguments.count == 2, let interface = call.arguments[0].string, let name = call.arguments[1].string else {
                return Self.invalidArguments(call, expected: "ss")
            }
            guard let value = objects[call.path]?[interface]?[name] else {
                return .error(
                    name: "org.freedesktop.DBus.Error.UnknownProperty", message: "\(call.path) has no property \(interface).\(name)")
            }
            return .reply([.variant(value)])
        case (Self.properties, "Set"):
            return .error(name: "org.freedesktop.DBus.Error.PropertyReadOnly", message: "\(call.path)'s properties are read-only")
        default:
            return .notHandled
        }
    }

    /// `a{oa{sa{sv}}}`, objects in path order.
    public var managedObjects: DBusValue {
        let entries = objects.keys.sorted().map { path in
            let interfaces = objects[path]!.keys.sorted().map { interface in
                DBusDictionaryEntry(key: .string(interface), value: Self.dictionary(objects[path]![interface]!))
            }
            return DBusDictionaryEntry(key: .objectPath(path), value: .dictionary(keySignature: "s", valueSignature: "a{sv}", interfaces))
        }
        return .dictionary(keySignature: "o", valueSignature: "a{sa{sv}}", entries)
    }

    static func dictionary(_ properties: [String: DBusValue]) -> DBusValue {
        .properties(properties.keys.sorted().map { ($0, properties[$0]!) })
    }

    /// InvalidArgs naming what the call takes and what it got.
    public static func invalidArguments(_ call: DBusMethodCall, expected: String) -> DBusMethodOutcome {
        .error(
            name: "org.freedesktop.DBus.Error.InvalidArgs",
            message: "\(call.interface).\(call.member) on \(call.path) takes (\(expected)), got (\(call.arguments.map(\.signature).joined()))")
    }
}
