import Glibc
import HeadsUpDBus
import HeadsUpPipeline
import Logging

/// Whether the phone is in use, from the desktop's services: Phosh/GNOME's
/// screen saver, KDE's screen locker and Mutter's power save on the session
/// bus, logind's session hints on the system bus. Each source is followed by
/// its bus name's owner: a service that starts later is read afresh, one
/// that stops is dropped, so a restarted Phosh or a session bus without
/// Plasma costs nothing. The answers combine as ``ScreenState/combining(_:)``
/// says. With no source answering, warnings follow the motion model alone,
/// and the log says so once.
///
/// Not thread-safe: the live loop calls ``poll()`` after its wait, with
/// ``readinessDescriptors`` among what it waits on.
public final class ScreenMonitor {
    public struct Options: Sendable {
        public var sessionBus: DBusConnection.Bus = .session
        public var systemBus: DBusConnection.Bus = .system
        /// The logind session to read (XDG_SESSION_ID); nil: the user's display session.
        public var sessionID: String?
        /// The user whose display session logind gives when `sessionID` is nil.
        public var userID = getuid()
        public var sources = Set(ScreenSourceKind.allCases)

        public init() {}

        /// The session the process runs in, as systemd and the login manager tell it.
        public static func from(environment: [String: String]) -> Options {
            var options = Options()
            if let id = environment["XDG_SESSION_ID"], !id.isEmpty { options.sessionID = id }
            return options
        }
    }

    /// One source's answer, for `headsup status`: nil while it does not answer.
    public struct Answer: Sendable, Equatable {
        public var source: ScreenSourceKind
        public var state: ScreenState?
    }

    public let options: Options
    private let logger: Logger
    private var session: DBusConnection?
    private var system: DBusConnection?
    private var owners: [ScreenSourceKind: String] = [:]
    private var states: [ScreenSourceKind: ScreenState] = [:]
    private var stale: Set<ScreenSourceKind> = []
    private var logindSession: String?
    /// logind's PropertiesChanged subscription: every session's until this
    /// user's session is known, then that one object's only, so other
    /// users' sessions do not wake the daemon.
    private var logindMatch: (match: DBusMatch, path: String?)?
    private var toldOdd: Set<ScreenSourceKind> = []
    private var toldSilent: Set<ScreenSourceKind> = []
    private var toldAlone = false

    public init(options: Options = Options(), logger: Logger) {
        self.options = options
        self.logger = logger
    }

    /// Connects to the buses, subscribes to each source and reads those
    /// present. Returns what could not be reached (a board's system service
    /// has no session bus), for the caller to log as the setting calls for.
    public func start() -> [String] {
        var unreachable: [String] = []
        let wanted = options.sources
        if wanted.contains(where: { !$0.onSystemBus }) {
            do { session = try subscribed(DBusConnection(options.sessionBus), onSystemBus: false) } catch {
                unreachable.append("\(error)")
            }
        }
        if wanted.contains(.logind) {
            do { system = try subscribed(DBusConnection(options.systemBus), onSystemBus: true) } catch {
                unreachable.append("\(error)")
            }
        }
        for kind in wanted.sorted(by: { $0.rawValue < $1.rawValue }) {
            guard let connection = connection(for: kind), let owner = connection.owner(of: kind.service) else { continue }
            owners[kind] = owner
            stale.insert(kind)
        }
        refresh()
        sayIfAlone()
        return unreachable
    }

    /// D-Bus messages dispatched per bus and pass; the screen sources send a few an hour.
    public static let messagesPerPoll = 200

    /// Takes what arrived on the buses, reads again the sources that
    /// changed, and returns the combined state.
    public func poll() -> ScreenState {
        for (connection, onSystemBus) in [(session, false), (system, true)] {
            guard let connection else { continue }
            // A bounded slice per pass: a flood on the bus waits for the next pass, scoring does not wait for it.
            do { try connection.process(timeout: 0, maximumMessages: Self.messagesPerPoll) } catch {
                logger.warning("screen: the \(onSystemBus ? "system" : "session") bus failed (\(error)); its screen sources are dropped")
                if onSystemBus { (system, logindMatch) = (nil, nil) } else { session = nil }
                for kind in ScreenSourceKind.allCases where kind.onSystemBus == onSystemBus { drop(kind) }
            }
        }
        refresh()
        sayIfAlone()
        return state
    }

    /// The sources' answers combined.
    public var state: ScreenState { ScreenState.combining(states.values) }

    /// Each wanted source's answer, in a fixed order.
    public var answers: [Answer] {
        ScreenSourceKind.allCases.filter(options.sources.contains).map { Answer(source: $0, state: states[$0]) }
    }

    /// The bus connections' sockets, readable when something arrived.
    public var readinessDescriptors: [Int32] { [session?.fileDescriptor, system?.fileDescriptor].compactMap { $0 } }

    public func stop() {
        session = nil
        system = nil
        logindMatch = nil
    }

    // MARK: Subscriptions

    private func subscribed(_ connection: DBusConnection, onSystemBus: Bool) throws(DBusError) -> DBusConnection {
        for kind in options.sources where kind.onSystemBus == onSystemBus {
            try connection.addMatch(
                "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(kind.service)'"
            ) { [weak self] in self?.ownerChanged(kind, $0) }
            switch kind {
            case .gnomeScreenSaver, .kdeScreenSaver:
                try connection.addMatch(
                    "type='signal',sender='\(kind.service)',interface='\(kind.service)',member='ActiveChanged',path='\(kind.path)'"
                ) { [weak self] in
                    self?.activeChanged(kind, $0)
                }
            case .mutterPowerSave:
                try connection.addMatch(
                    "type='signal',sender='\(kind.service)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='\(kind.path)'"
                ) { [weak self] in self?.propertiesChanged(kind, $0) }
            case .logind:
                try followLogind(session: nil, on: connection)
            }
        }
        return connection
    }

    /// Subscribes to the PropertiesChanged of `session`, or of every
    /// session while it is not known, replacing the previous subscription.
    private func followLogind(session: String?, on connection: DBusConnection) throws(DBusError) {
        if let current = logindMatch {
            guard current.path != session else { return }
            connection.removeMatch(current.match)
            logindMatch = nil
        }
        let objects = session.map { "path='\($0)'" } ?? "path_namespace='/org/freedesktop/login1/session'"
        let rule = "type='signal',sender='\(ScreenSourceKind.logind.service)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'"
        let match = try connection.addMatch("\(rule),\(objects)") {
            [weak self] in self?.propertiesChanged(.logind, $0)
        }
        logindMatch = (match, session)
    }

    private func ownerChanged(_ kind: ScreenSourceKind, _ signal: DBusSignal) {
        guard signal.arguments.count == 3, signal.arguments[0].string == kind.service else { return }
        let newOwner = signal.arguments[2].string ?? ""
        if newOwner.isEmpty {
            if owners[kind] != nil { logger.notice("screen: \(kind.label) (\(kind.service)) left the bus; it is no longer asked") }
            drop(kind)
        } else {
            owners[kind] = newOwner
            if kind == .logind { logindSession = nil }
            stale.insert(kind)
        }
    }

    private func activeChanged(_ kind: ScreenSourceKind, _ signal: DBusSignal) {
        guard owners[kind] != nil, signal.sender == nil || signal.sender == owners[kind] else { return }
        guard let value = signal.arguments.first, let state = ScreenSourceKind.screenSaver(kind, active: value) else {
            odd(kind, "ActiveChanged\(signal.arguments)", expected: "one boolean")
            return
        }
        answer(kind, state)
    }

    private func propertiesChanged(_ kind: ScreenSourceKind, _ signal: DBusSignal) {
        guard owners[kind] != nil else { return }
        if kind == .logind, signal.path != logindSession { return }
        stale.insert(kind)
    }

    // MARK: Reading

    private func connection(for kind: ScreenSourceKind) -> DBusConnection? { kind.onSystemBus ? system : session }

    private func refresh() {
        let due = stale
        stale.removeAll()
        for kind in due.sorted(by: { $0.rawValue < $1.rawValue }) where owners[kind] != nil { read(kind) }
    }

    private func read(_ kind: ScreenSourceKind) {
        guard let connection = connection(for: kind) else { return }
        do {
            switch kind {
            case .gnomeScreenSaver, .kdeScreenSaver:
                let reply = try connection.call(destination: kind.service, path: kind.path, interface: kind.service, member: "GetActive", timeout: 2)
                guard let value = reply.first, let state = ScreenSourceKind.screenSaver(kind, active: value) else {
                    return odd(kind, "GetActive → \(reply)", expected: "one boolean")
                }
                answer(kind, state)
            case .mutterPowerSave:
                let reply = try connection.call(
                    destination: kind.service, path: kind.path, interface: "org.freedesktop.DBus.Properties", member: "Get",
                    arguments: [.string(kind.service), .string("PowerSaveMode")], timeout: 2)
                guard let value = reply.first, let state = ScreenSourceKind.powerSaveMode(value) else {
                    return odd(kind, "PowerSaveMode \(reply)", expected: "an integer")
                }
                answer(kind, state)
            case .logind:
                guard let path = try logindSessionPath(connection) else {
                    silent(kind, "this user has no graphical logind session (XDG_SESSION_ID unset)")
                    states[kind] = nil
                    return
                }
                try followLogind(session: path, on: connection)
                let reply = try connection.call(
                    destination: kind.service, path: path, interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                    arguments: [.string("org.freedesktop.login1.Session")], timeout: 2)
                guard let properties = reply.first?.stringKeyed, let state = ScreenSourceKind.session(properties) else {
                    return odd(kind, "session \(path) properties", expected: "booleans LockedHint and IdleHint")
                }
                answer(kind, state)
            }
        } catch {
            // GNOME's gsd proxy owns org.freedesktop.ScreenSaver without GetActive; a service may hang.
            silent(kind, "\(error)")
            states[kind] = nil
        }
    }

    /// The logind session object: XDG_SESSION_ID's, else the user's display session.
    private func logindSessionPath(_ connection: DBusConnection) throws(DBusError) -> String? {
        if let logindSession { return logindSession }
        let manager = (service: "org.freedesktop.login1", path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager")
        if let id = options.sessionID {
            logindSession = try connection.call(
                destination: manager.service, path: manager.path, interface: manager.interface, member: "GetSession", arguments: [.string(id)]
            ).first?.string
        } else {
            guard
                let user = try connection.call(
                    destination: manager.service, path: manager.path, interface: manager.interface, member: "GetUser",
                    arguments: [.uint32(options.userID)]
                ).first?.string
            else { return nil }
            let display = try connection.call(
                destination: manager.service, path: user, interface: "org.freedesktop.DBus.Properties", member: "Get",
                arguments: [.string("org.freedesktop.login1.User"), .string("Display")]
            ).first?.items
            if let path = display?.last?.string, path != "/" { logindSession = path }
        }
        return logindSession
    }

    // MARK: Bookkeeping

    private func answer(_ kind: ScreenSourceKind, _ state: ScreenState) {
        if states[kind] == nil { logger.info("screen: \(kind.label) answers: \(state.rawValue)") }
        states[kind] = state
        toldSilent.remove(kind)
    }

    private func drop(_ kind: ScreenSourceKind) {
        owners[kind] = nil
        states[kind] = nil
        stale.remove(kind)
        if kind == .logind { logindSession = nil }
    }

    /// A payload of the wrong shape: kept out of the state, said once per source.
    private func odd(_ kind: ScreenSourceKind, _ what: String, expected: String) {
        guard toldOdd.insert(kind).inserted else { return }
        logger.warning("screen: \(kind.label) (\(kind.service)) sent \(what) where \(expected) was expected; ignored")
    }

    private func silent(_ kind: ScreenSourceKind, _ why: String) {
        guard toldSilent.insert(kind).inserted else { return }
        logger.info("screen: \(kind.label) (\(kind.service)) does not answer: \(why)")
    }

    private func sayIfAlone() {
        if states.isEmpty {
            if !toldAlone {
                logger.notice("screen: no screen or lock source answers; warnings follow the motion model alone until one does")
            }
            toldAlone = true
        } else {
            toldAlone = false
        }
    }
}
