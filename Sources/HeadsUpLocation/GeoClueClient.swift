import Glibc
import HeadsUpCrossings
import HeadsUpDBus
import HeadsUpSystem
import Logging

/// Positions from GeoClue2 on the system bus, for the mapped crossings.
///
/// `Manager.GetClient()` gives a client object; it is told `DesktopId`
/// ("headsup", the package's .desktop file), `RequestedAccuracyLevel`
/// EXACT (8) and thresholds of 0 (every fix), and `Start()`ed after the
/// `LocationUpdated` match is in place. Each update names a new `Location`
/// object, read at once (GeoClue removes it on the next update).
///
/// GeoClue's refusals become named states (``GeoClueState``): Location off,
/// no agent, unavailable. GeoClue exits 60 s after its last client, or
/// crashes: when its name leaves the bus the client says `restarting` and
/// starts again when the name returns, or every `retryInterval` (GetClient
/// itself starts GeoClue by D-Bus activation). Not thread-safe: the live
/// loop calls ``poll()`` after its wait, with ``readinessDescriptors``
/// among what it waits on.
public final class GeoClueClient {
    public static let service = "org.freedesktop.GeoClue2"
    public static let managerPath = "/org/freedesktop/GeoClue2/Manager"
    static let managerInterface = "org.freedesktop.GeoClue2.Manager"
    static let clientInterface = "org.freedesktop.GeoClue2.Client"
    static let locationInterface = "org.freedesktop.GeoClue2.Location"
    /// GClueAccuracyLevel EXACT.
    public static let exactAccuracy: UInt32 = 8

    public struct Options: Sendable {
        public var bus: DBusConnection.Bus = .system
        public var desktopID = "headsup"
        /// Seconds between attempts while GeoClue is away, off or without an agent.
        public var retryInterval = 10.0
        /// Seconds a call may take (Start waits for an agent inside GeoClue).
        public var callTimeout = 3.0
        public init() {}
    }

    public struct Counters: Sendable, Equatable {
        public var updates = 0
        public var unreadable = 0
        public var starts = 0
    }

    public let options: Options
    private let clock: any MonotonicClock
    private let wallClock: any WallClock
    private let logger: Logger
    private var connection: DBusConnection?
    private var clientPath: String?
    private var owner: String?
    private var nextAttempt = -Double.infinity
    private var pending: [LocationFix] = []
    public private(set) var state = GeoClueState.starting
    public private(set) var counters = Counters()

    public init(options: Options = Options(), clock: any MonotonicClock, wallClock: any WallClock, logger: Logger) {
        self.options = options
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
    }

    /// Connects, subscribes and starts a client; a failure is a state, never thrown.
    public func start() {
        do {
            let connection = try DBusConnection(options.bus)
            try connection.addMatch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.service)'"
            ) { [weak self] in self?.ownerChanged($0) }
            // Only GeoClue's own fixes: the seam drops a LocationUpdated from any other sender.
            try connection.addMatch("type='signal',sender='\(Self.service)',interface='\(Self.clientInterface)',member='LocationUpdated'") {
                [weak self] in
                self?.locationUpdated($0)
            }
            self.connection = connection
        } catch {
            state = .unavailable("\(error)")
            return
        }
        attempt()
    }

    /// The fixes that arrived since the last call; retries a client that is not running when due.
    public func poll() -> [LocationFix] {
        if let connection {
            do { try connection.process(timeout: 0) } catch {
                logger.warning("location: the system bus failed (\(error)); GeoClue2 is not asked any more")
                self.connection = nil
                state = .unavailable("\(error)")
            }
        }
        if clientPath == nil, connection != nil, clock.now() >= nextAttempt { attempt() }
        defer { pending.removeAll() }
        return pending
    }

    public var readinessDescriptors: [Int32] { [connection?.fileDescriptor].compactMap { $0 } }

    public func stop() {
        if let connection, let clientPath {
            _ = try? connection.call(
                destination: Self.service, path: clientPath, interface: Self.clientInterface, member: "Stop", timeout: options.callTimeout)
        }
        clientPath = nil
        connection = nil
    }

    // MARK: Starting

    private func attempt() {
        guard let connection else { return }
        nextAttempt = clock.now() + options.retryInterval
        do {
            let reply = try connection.call(
                destination: Self.service, path: Self.managerPath, interface: Self.managerInterface, member: "GetClient",
                timeout: options.callTimeout)
            guard let path = reply.first?.string, path.hasPrefix("/") else {
                state = .failed("GetClient gave \(reply) instead of a client object")
                return
            }
            owner = connection.owner(of: Self.service)
            try set(path, "DesktopId", .string(options.desktopID))
            try set(path, "RequestedAccuracyLevel", .uint32(Self.exactAccuracy))
            try set(path, "DistanceThreshold", .uint32(0))
            try set(path, "TimeThreshold", .uint32(0))
            try connection.call(destination: Self.service, path: path, interface: Self.clientInterface, member: "Start", timeout: options.callTimeout)
            clientPath = path
            counters.starts += 1
            state = .noFix
            readCurrent(path)
        } catch {
            state = GeoClueState.refusal(name: error.name, message: error.message, timedOut: error.errno == ETIMEDOUT)
        }
    }

    private func set(_ path: String, _ property: String, _ value: DBusValue) throws(DBusError) {
        try connection?.call(
            destination: Self.service, path: path, interface: "org.freedesktop.DBus.Properties", member: "Set",
            arguments: [.string(Self.clientInterface), .string(property), .variant(value)], timeout: options.callTimeout)
    }

    /// A client that already has a fix names it in its `Location` property.
    private func readCurrent(_ client: String) {
        guard
            let value = try? connection?.call(
                destination: Self.service, path: client, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string(Self.clientInterface), .string("Location")], timeout: options.callTimeout
            ).first?.string, value != "/"
        else { return }
        read(location: value)
    }

    // MARK: Signals

    private func ownerChanged(_ signal: DBusSignal) {
        guard signal.arguments.count == 3, signal.arguments[0].string == Self.service else { return }
        let newOwner = signal.arguments[2].string ?? ""
        if newOwner.isEmpty {
            guard clientPath != nil || owner != nil else { return }
            clientPath = nil
            owner = nil
            state = .restarting
            nextAttempt = clock.now() + options.retryInterval
        } else if clientPath == nil {
            // GeoClue is back (or came up): start now rather than at the next retry.
            nextAttempt = -Double.infinity
        }
    }

    private func locationUpdated(_ signal: DBusSignal) {
        guard let clientPath, signal.path == clientPath else { return }
        guard signal.arguments.count == 2, let new = signal.arguments[1].string else {
            counters.unreadable += 1
            return
        }
        read(location: new)
    }

    private func read(location path: String) {
        guard let connection,
            let reply = try? connection.call(
                destination: Self.service, path: path, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                arguments: [.string(Self.locationInterface)], timeout: options.callTimeout
            ).first?.stringKeyed
        else {
            counters.unreadable += 1
            return
        }
        var numbers: [String: Double] = [:]
        for (key, value) in reply {
            if case .double(let number) = value.unwrapped { numbers[key] = number }
        }
        var timestamp: (UInt64, UInt64)?
        if let fields = reply["Timestamp"]?.items, fields.count == 2, let seconds = fields[0].integer, let micro = fields[1].integer, seconds >= 0,
            micro >= 0
        {
            timestamp = (UInt64(seconds), UInt64(micro))
        }
        guard let fix = GeoClueLocation.fix(numbers, timestamp: timestamp, monotonicNow: clock.now(), wallNow: wallClock.secondsSince1970())
        else {
            counters.unreadable += 1
            return
        }
        counters.updates += 1
        state = .fixes
        pending.append(fix)
    }
}
