import CSDBus
import Glibc

/// A signal as delivered to a match handler.
public struct DBusSignal: Sendable, Equatable {
    public var sender: String?
    public var path: String
    public var interface: String
    public var member: String
    public var arguments: [DBusValue]
}

/// A connection to a D-Bus bus through sd-bus: method calls, signal
/// matches and a bounded event loop step. Not thread-safe: use it from
/// one thread (sd-bus's own rule).
///
/// `.system` and `.session` honour DBUS_SYSTEM_BUS_ADDRESS and
/// DBUS_SESSION_BUS_ADDRESS, which is how tests point HeadsUp at a private
/// dbus-daemon with mock services.
public final class DBusConnection {
    public enum Bus: Sendable {
        case system
        case session
        case address(String)
    }

    /// Internal: the export seam (DBusConnection+Export.swift) uses it too.
    var bus: OpaquePointer?
    private var handlers: [HandlerBox] = []
    /// Exported subtrees, kept alive as long as their slots.
    var exports: [ExportBox] = []
    /// Failures inside signal handlers' decoding, counted (never thrown
    /// across the C callback).
    public private(set) var undecodableSignalCount = 0
    /// Signals dropped because their sender is not the one their match rule
    /// names (``DBusSenderCheck``): another client playing a service.
    public private(set) var foreignSignalCount = 0
    /// The owners of the well-known names the matches name.
    private var senders = DBusSenderCheck()

    public init(_ which: Bus) throws(DBusError) {
        var opened: OpaquePointer?
        let result: Int32
        switch which {
        case .system: result = sd_bus_open_system(&opened)
        case .session: result = sd_bus_open_user(&opened)
        case .address(let address):
            var created: OpaquePointer?
            var status = sd_bus_new(&created)
            if status >= 0 { status = address.withCString { sd_bus_set_address(created, $0) } }
            if status >= 0 { status = sd_bus_set_bus_client(created, 1) }
            if status >= 0 { status = sd_bus_start(created) }
            if status < 0 { sd_bus_unref(created) } else { opened = created }
            result = status
        }
        guard result >= 0, let opened else {
            let name: String
            switch which {
            case .system: name = "the system bus (DBUS_SYSTEM_BUS_ADDRESS or /run/dbus/system_bus_socket)"
            case .session: name = "the session bus (DBUS_SESSION_BUS_ADDRESS)"
            case .address(let address): name = address
            }
            throw DBusError(operation: "connecting to \(name)", message: String(cString: strerror(abs(result))), errno: abs(result))
        }
        bus = opened
    }

    deinit {
        for box in handlers { sd_bus_slot_unref(box.slot) }
        for box in exports { sd_bus_slot_unref(box.slot) }
        sd_bus_flush_close_unref(bus)
    }

    /// Calls a method and returns the reply's arguments.
    @discardableResult
    public func call(
        destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = [],
        timeout: Double = 5
    ) throws(DBusError) -> [DBusValue] {
        let operation = "\(interface).\(member) on \(destination) \(path)"
        var message: OpaquePointer?
        var status = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard status >= 0, let message else { throw .errno(status, operation) }
        defer { sd_bus_message_unref(message) }
        for argument in arguments { try DBusMessageCoding.append(argument, to: message) }
        var error = headsup_sd_bus_error_null()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        status = sd_bus_call(bus, message, UInt64(timeout * 1_000_000), &error, &reply)
        guard status >= 0, let reply else {
            if sd_bus_error_is_set(&error) != 0 {
                throw DBusError(
                    operation: operation, name: error.name.map { String(cString: $0) },
                    message: error.message.map { String(cString: $0) } ?? "", errno: abs(status))
            }
            throw .errno(status, operation)
        }
        defer { sd_bus_message_unref(reply) }
        return try DBusMessageCoding.readAll(reply)
    }

    /// Calls `handler` for every signal matching `rule` (D-Bus match rule
    /// syntax). With `accept`, a signal whose head it refuses is dropped
    /// before its arguments are decoded.
    ///
    /// A rule's `sender=` is enforced here, not only asked of the bus: a
    /// signal from anyone but that name's current owner is dropped and
    /// counted in `foreignSignalCount` (``DBusSenderCheck`` says why). A
    /// rule without `sender=` takes signals from anyone.
    @discardableResult
    public func addMatch(
        _ rule: String, accept: ((DBusSignalHead) -> Bool)? = nil, handler: @escaping (DBusSignal) -> Void
    ) throws(DBusError) -> DBusMatch {
        let sender = DBusSenderCheck.sender(inRule: rule)
        if let sender, senders.needsFollowing(sender) { try follow(sender) }
        let box = HandlerBox(handler: handler, accept: accept, sender: sender, connection: self)
        let callback: sd_bus_message_handler_t = { message, userdata, _ in
            guard let message, let userdata else { return 0 }
            let box = Unmanaged<HandlerBox>.fromOpaque(userdata).takeUnretainedValue()
            box.deliver(message)
            return 0
        }
        var slot: OpaquePointer?
        let status = sd_bus_add_match(bus, &slot, rule, callback, Unmanaged.passUnretained(box).toOpaque())
        guard status >= 0 else { throw .errno(status, "subscribing to \(rule)") }
        box.slot = slot
        handlers.append(box)
        return DBusMatch(box: ObjectIdentifier(box))
    }

    /// Ends a subscription: the bus stops sending its signals here.
    public func removeMatch(_ match: DBusMatch) {
        guard let index = handlers.firstIndex(where: { ObjectIdentifier($0) == match.box }) else { return }
        sd_bus_slot_unref(handlers[index].slot)
        handlers.remove(at: index)
    }

    /// Dispatches what has arrived, waiting up to `timeout` seconds for
    /// something to arrive first. Every message already queued is read in
    /// this one call (sd_bus_process reads the socket itself until it
    /// returns 0); with a timeout of 0 nothing waits at all, so a caller
    /// that polls the descriptor itself pays no second poll per wake-up.
    ///
    /// At most `maximumMessages` are dispatched per call: a flood of
    /// signals (a crowd, or a client sending them on purpose) is worked off
    /// over several calls, and the caller's other work (scoring) runs in
    /// between. What is left stays queued for the next call.
    public func process(timeout: Double, maximumMessages: Int = .max) throws(DBusError) {
        var budget = maximumMessages
        try drain(&budget)
        guard timeout > 0, budget > 0 else { return }
        let waited = sd_bus_wait(bus, UInt64(max(0, min(timeout, 3600)) * 1_000_000))
        guard waited >= 0 || waited == -EINTR else { throw .errno(waited, "waiting for D-Bus messages") }
        try drain(&budget)
    }

    private func drain(_ budget: inout Int) throws(DBusError) {
        while budget > 0 {
            let processed = sd_bus_process(bus, nil)
            guard processed >= 0 else { throw .errno(processed, "processing D-Bus messages") }
            if processed == 0 { break }
            budget -= 1
        }
    }

    /// The connection's socket, for a caller that waits on several inputs
    /// at once; it must `process(timeout: 0)` after each wake (which also
    /// empties what sd-bus has already read) before waiting again.
    public var fileDescriptor: Int32? {
        let descriptor = sd_bus_get_fd(bus)
        return descriptor >= 0 ? descriptor : nil
    }

    /// This connection's unique name on the bus (":1.42"): where a peer
    /// calls the objects it exports.
    public var uniqueName: String? {
        var name: UnsafePointer<CChar>?
        guard sd_bus_get_unique_name(bus, &name) >= 0, let name else { return nil }
        return String(cString: name)
    }

    /// The unique name owning `name`, or `nil` when nobody does.
    public func owner(of name: String) -> String? {
        try? call(
            destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
            member: "GetNameOwner", arguments: [.string(name)]
        ).first?.string
    }

    fileprivate func countUndecodable() { undecodableSignalCount += 1 }

    /// Follows `name`'s owner: the bus driver's NameOwnerChanged first (so
    /// no change falls between), then its owner now.
    private func follow(_ name: String) throws(DBusError) {
        senders.follow(name)
        let driver = DBusSenderCheck.busDriver
        try addMatch(
            "type='signal',sender='\(driver)',path='/org/freedesktop/DBus',interface='\(driver)',member='NameOwnerChanged',arg0='\(name)'"
        ) { [weak self] signal in
            guard signal.arguments.count == 3, signal.arguments[0].string == name, let owner = signal.arguments[2].string else { return }
            self?.senders.ownerChanged(name, to: owner)
        }
        senders.ownerChanged(name, to: owner(of: name))
    }

    /// Whether a signal from `actual` may reach a match naming `expected`; counts the ones that may not.
    fileprivate func admits(_ actual: String?, from expected: String) -> Bool {
        guard senders.accepts(actual, from: expected) else {
            foreignSignalCount += 1
            return false
        }
        return true
    }

    private final class HandlerBox {
        let handler: (DBusSignal) -> Void
        let accept: ((DBusSignalHead) -> Bool)?
        /// The rule's `sender=`, enforced on every delivery.
        let sender: String?
        weak var connection: DBusConnection?
        var slot: OpaquePointer?

        init(handler: @escaping (DBusSignal) -> Void, accept: ((DBusSignalHead) -> Bool)?, sender: String?, connection: DBusConnection) {
            self.handler = handler
            self.accept = accept
            self.sender = sender
            self.connection = connection
        }

        func deliver(_ message: OpaquePointer) {
            let header = DBusMessageCoding.header(message)
            if let sender {
                guard let connection, connection.admits(header.sender, from: sender) else { return }
            }
            if let accept {
                var head = DBusSignalHead(path: header.path, interface: header.interface, member: header.member)
                if header.interface == "org.freedesktop.DBus.Properties", header.member == "PropertiesChanged" {
                    head.changedProperties = DBusMessageCoding.changedPropertyNames(message)
                }
                guard accept(head) else { return }
            }
            guard let arguments = try? DBusMessageCoding.readAll(message) else {
                connection?.countUndecodable()
                return
            }
            handler(
                DBusSignal(sender: header.sender, path: header.path, interface: header.interface, member: header.member, arguments: arguments))
        }
    }
}

/// One `addMatch` subscription, to end it with `removeMatch`.
public struct DBusMatch: Hashable, Sendable {
    fileprivate let box: ObjectIdentifier
}
