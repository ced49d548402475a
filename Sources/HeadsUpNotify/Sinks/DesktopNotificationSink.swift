import Foundation
import HeadsUpDBus
import HeadsUpSystem
import Logging

/// org.freedesktop.Notifications.Notify on the session bus: what Phosh,
/// Plasma Mobile and desktop environments show as a banner. Critical
/// urgency and a warning sound; with an action handler, "Snooze 30 min"
/// and "Dismiss" buttons whose presses (ActionInvoked) reach the handler.
public final class DesktopNotificationSink: NotificationSink, @unchecked Sendable {
    /// What the user did with a notification.
    public enum UserAction: Sendable, Equatable {
        /// "Snooze 30 min": warnings pause for ``snoozeLength``.
        case snooze
        /// "Dismiss", a click on the banner, or closing it: the user has seen it.
        case dismiss
    }

    /// The length the Snooze button's label promises.
    public static let snoozeLength = 1800.0
    /// The .desktop file the notifications name (installed as headsup.desktop).
    public static let desktopEntry = "headsup"

    public let name = "desktop"
    public let appName: String
    public let icon: String
    private let bus: DBusConnection.Bus
    private let onAction: (@Sendable (UserAction) -> Void)?
    private let logger: Logger
    private var connection: DBusConnection?
    private let lock = NSLock()
    /// Notifications shown and not yet closed (guarded by `lock`).
    private var shown: Set<UInt32> = []
    private var listener: Thread?
    private var stopping = false
    /// Raised by `close`: the listener sleeps on it and on its bus, with no timeout.
    private let stopSignal = ReadinessSignal()

    public init(
        appName: String = "HeadsUp", icon: String = "dialog-warning", bus: DBusConnection.Bus = .session,
        logger: Logger = Logger(label: "headsup.notify"),
        onAction: (@Sendable (UserAction) -> Void)? = nil
    ) {
        self.appName = appName
        self.icon = icon
        self.bus = bus
        self.logger = logger
        self.onAction = onAction
    }

    public func deliver(_ notification: NotificationMessage) throws {
        do {
            if onAction != nil { try startListening() }
            if connection == nil { connection = try DBusConnection(bus) }
            let hints = DBusValue.dictionary(
                keySignature: "s", valueSignature: "v",
                [
                    DBusDictionaryEntry(key: .string("urgency"), value: .variant(.byte(2))),
                    DBusDictionaryEntry(key: .string("category"), value: .variant(.string("device"))),
                    DBusDictionaryEntry(key: .string("desktop-entry"), value: .variant(.string(Self.desktopEntry))),
                    // The sound naming spec's warning sound; servers that play sounds use it.
                    DBusDictionaryEntry(key: .string("sound-name"), value: .variant(.string("dialog-warning"))),
                ])
            // Without a handler, buttons would do nothing: offer none.
            let actions: [DBusValue] =
                onAction == nil ? [] : ["default", "Dismiss", "snooze", "Snooze 30 min", "dismiss", "Dismiss"].map(DBusValue.string)
            let reply = try connection!.call(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.Notifications", member: "Notify",
                arguments: [
                    .string(appName), .uint32(0), .string(icon), .string(notification.title), .string(notification.body),
                    .array(elementSignature: "s", actions), hints, .int32(-1),
                ],
                timeout: 5)
            if let id = reply.first?.integer {
                lock.lock()
                shown.insert(UInt32(truncatingIfNeeded: id))
                lock.unlock()
            }
        } catch {
            connection = nil
            throw SinkError(sink: name, message: "\(error) (is a notification daemon running on the session bus?)")
        }
    }

    /// Takes the banners down: the user has dealt with the warning elsewhere.
    public func acknowledge() {
        lock.lock()
        let open = shown
        shown.removeAll()
        lock.unlock()
        guard let connection else { return }
        for id in open.sorted() {
            _ = try? connection.call(
                destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications",
                interface: "org.freedesktop.Notifications", member: "CloseNotification", arguments: [.uint32(id)])
        }
    }

    public func close() {
        lock.lock()
        stopping = true
        let thread = listener
        lock.unlock()
        stopSignal.raise()
        while let thread, !thread.isFinished { usleep(10_000) }
    }

    /// A thread of its own, on a connection of its own, waits for the
    /// buttons; its match is in place before the first Notify. It sleeps
    /// until a signal arrives or `close` raises the stop signal: a phone
    /// keeps the notification's buttons all day, and a timed wait would
    /// wake it every second for nothing.
    private func startListening() throws(DBusError) {
        lock.lock()
        defer { lock.unlock() }
        guard listener == nil else { return }
        let listening = try DBusConnection(bus)
        // The sender is checked on delivery too (DBusConnection.addMatch): nobody else can press the buttons.
        let rule =
            "type='signal',sender='org.freedesktop.Notifications',interface='org.freedesktop.Notifications',path='/org/freedesktop/Notifications'"
        try listening.addMatch(rule) { [weak self] signal in self?.handle(signal) }
        // Handed over: only the thread uses this connection from here on.
        nonisolated(unsafe) let owned = listening
        let stop = stopSignal
        let thread = Thread { [weak self] in
            while let self, !self.isStopping {
                do { try owned.process(timeout: 0) } catch {
                    self.logger.warning("desktop: notification buttons no longer work: \(error)")
                    return
                }
                guard let bus = owned.fileDescriptor, let stopping = stop.descriptor else {
                    // No descriptor to sleep on: fall back to a timed wait.
                    _ = try? owned.process(timeout: 1)
                    continue
                }
                waitUntilReadable([bus, stopping], timeout: 3600)
            }
        }
        thread.name = "headsup-notification-actions"
        listener = thread
        thread.start()
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    /// ActionInvoked(u id, s key) and NotificationClosed(u id, u reason):
    /// reason 2 is "dismissed by the user".
    private func handle(_ signal: DBusSignal) {
        guard let first = signal.arguments.first?.integer else { return }
        let id = UInt32(truncatingIfNeeded: first)
        lock.lock()
        let ours = shown.contains(id)
        if ours, signal.member == "NotificationClosed" { shown.remove(id) }
        lock.unlock()
        guard ours, let onAction else { return }
        switch (signal.member, signal.arguments.count > 1 ? signal.arguments[1] : nil) {
        case ("ActionInvoked", let key?) where key.string == "snooze":
            onAction(.snooze)
        case ("ActionInvoked", _):
            onAction(.dismiss)
        case ("NotificationClosed", let reason?) where reason.integer == 2:
            onAction(.dismiss)
        default:
            break
        }
    }
}
