import Foundation
import Glibc
import HeadsUpDBus

/// python-dbusmock's notification daemon on a private bus: it records the
/// Notify calls, and a test plays the user by emitting its signals
/// (ActionInvoked for a button, NotificationClosed).
public final class MockNotificationDaemon {
    private let process: BackgroundProcess
    private let probe: DBusConnection

    public init(bus: PrivateDBus) throws {
        process = try BackgroundProcess(
            PrivateDBus.python, ["-m", "dbusmock", "--session", "-t", "notification_daemon"], environment: bus.environment)
        probe = try DBusConnection(.address(bus.address))
        for _ in 0..<200 where probe.owner(of: "org.freedesktop.Notifications") == nil { usleep(25_000) }
    }

    deinit { process.finish(timeout: 0) }

    /// The arguments of each Notify call so far, variants unwrapped.
    public func notifications() throws -> [[DBusValue]] {
        let calls = try mock("GetCalls")
        return (calls.first?.items ?? []).filter { $0.items?[1].string == "Notify" }.compactMap { $0.items?[2].items?.map(\.unwrapped) }
    }

    /// Emits a signal from the daemon, as if the user acted on a notification.
    public func emit(_ member: String, signature: String, _ arguments: [DBusValue]) throws {
        try mock(
            "EmitSignal",
            [
                .string("org.freedesktop.Notifications"), .string(member), .string(signature),
                .array(elementSignature: "v", arguments.map { .variant($0) }),
            ])
    }

    @discardableResult
    private func mock(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try probe.call(
            destination: "org.freedesktop.Notifications", path: "/org/freedesktop/Notifications", interface: "org.freedesktop.DBus.Mock",
            member: member, arguments: arguments)
    }
}
