import Foundation
import Glibc
import HeadsUpDBus

/// The screen and lock services HeadsUp reads, played by python-dbusmock on
/// a private bus: its `gnome_screensaver` template (Phosh/GNOME), a plain
/// mock of KDE's `org.freedesktop.ScreenSaver`, a plain mock of Mutter's
/// DisplayConfig with its PowerSaveMode, and its `logind` template with one
/// session. Each can be stopped and started again, as a desktop restarts.
public final class MockScreenService {
    public enum Kind: Sendable {
        case gnomeScreenSaver, kdeScreenSaver, mutter, logind
    }

    public let kind: Kind
    private let bus: PrivateDBus
    private let probe: DBusConnection
    private var process: BackgroundProcess?
    /// The logind session the mock holds (XDG_SESSION_ID for the code under test).
    public static let sessionID = "c1"
    public static let sessionPath = "/org/freedesktop/login1/session/c1"

    public init(_ kind: Kind, bus: PrivateDBus) throws {
        self.kind = kind
        self.bus = bus
        probe = try DBusConnection(.address(bus.address))
        try start()
    }

    deinit { process?.killAbruptly() }

    var service: String {
        switch kind {
        case .gnomeScreenSaver: "org.gnome.ScreenSaver"
        case .kdeScreenSaver: "org.freedesktop.ScreenSaver"
        case .mutter: "org.gnome.Mutter.DisplayConfig"
        case .logind: "org.freedesktop.login1"
        }
    }

    var path: String {
        switch kind {
        case .gnomeScreenSaver: "/org/gnome/ScreenSaver"
        case .kdeScreenSaver: "/org/freedesktop/ScreenSaver"
        case .mutter: "/org/gnome/Mutter/DisplayConfig"
        case .logind: "/org/freedesktop/login1"
        }
    }

    /// Starts the mock (again) and sets it up: screen on, unlocked, not idle.
    public func start() throws {
        let arguments: [String]
        switch kind {
        case .gnomeScreenSaver: arguments = ["--session", "-t", "gnome_screensaver"]
        case .logind: arguments = ["--system", "-t", "logind"]
        case .kdeScreenSaver, .mutter: arguments = ["--session", service, path, service]
        }
        process = try BackgroundProcess(PrivateDBus.python, ["-m", "dbusmock"] + arguments, environment: bus.environment)
        for _ in 0..<200 where probe.owner(of: service) == nil { usleep(25_000) }
        guard probe.owner(of: service) != nil else { throw CapabilityMissing(reason: "dbusmock did not take \(service): \(process!.standardError)") }
        switch kind {
        case .gnomeScreenSaver:
            break
        case .kdeScreenSaver:
            try mock(
                "AddMethod",
                [
                    .string(service), .string("GetActive"), .string(""), .string("b"),
                    .string("ret = getattr(self, 'headsup_active', False)"),
                ])
            try mock(
                "AddMethod",
                [
                    .string(service), .string("SetActive"), .string("b"), .string(""),
                    .string("self.headsup_active = args[0]; self.EmitSignal('\(service)', 'ActiveChanged', 'b', [args[0]])"),
                ])
        case .mutter:
            try mock("AddProperty", [.string(service), .string("PowerSaveMode"), .variant(.int32(0))])
        case .logind:
            try mock(
                "AddSession", [.string(Self.sessionID), .string("seat0"), .uint32(getuid()), .string("walker"), .boolean(true)])
        }
    }

    /// Stops the mock: its name leaves the bus.
    public func stop() {
        process?.killAbruptly()
        _ = process?.finish(timeout: 5)
        process = nil
        for _ in 0..<200 where probe.owner(of: service) != nil { usleep(25_000) }
    }

    /// Blanks (GNOME: ActiveChanged(true)) or locks (KDE) the screen, or wakes it.
    public func setActive(_ active: Bool) throws {
        try probe.call(destination: service, path: path, interface: service, member: "SetActive", arguments: [.boolean(active)])
    }

    /// Mutter's PowerSaveMode: 0 on, 3 off.
    public func setPowerSaveMode(_ mode: Int32) throws {
        try mock("UpdateProperties", [.string(service), .properties([("PowerSaveMode", .int32(mode))])])
    }

    /// logind's LockedHint, as Phosh and KDE set it.
    public func setLockedHint(_ locked: Bool) throws {
        try probe.call(
            destination: service, path: Self.sessionPath, interface: "org.freedesktop.login1.Session", member: "SetLockedHint",
            arguments: [.boolean(locked)])
    }

    /// logind's IdleHint, as gnome-session sets it.
    public func setIdleHint(_ idle: Bool) throws {
        try mock(
            "UpdateProperties", [.string("org.freedesktop.login1.Session"), .properties([("IdleHint", .boolean(idle))])], path: Self.sessionPath)
    }

    /// A signal of the service's own interface with any payload (a wrong type, to see it ignored).
    public func emit(_ member: String, signature: String, _ arguments: [DBusValue]) throws {
        try mock(
            "EmitSignal", [.string(service), .string(member), .string(signature), .array(elementSignature: "v", arguments.map { .variant($0) })])
    }

    @discardableResult
    private func mock(_ member: String, _ arguments: [DBusValue], path: String? = nil) throws -> [DBusValue] {
        try probe.call(
            destination: service, path: path ?? self.path, interface: "org.freedesktop.DBus.Mock", member: member, arguments: arguments)
    }
}
