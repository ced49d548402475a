import CSDBus
import FoundationEssentials

/// sd_notify for running under systemd as `Type=notify`: READY once set
/// up, WATCHDOG pings at half the unit's WatchdogSec, STATUS lines.
/// Outside systemd (no NOTIFY_SOCKET) every call does nothing.
public struct SystemdNotifier: Sendable {
    /// Seconds between watchdog pings, or nil when the unit has no watchdog.
    public let watchdogInterval: Double?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let text = environment["WATCHDOG_USEC"], let microseconds = Double(text), microseconds > 0 {
            watchdogInterval = microseconds / 2_000_000
        } else {
            watchdogInterval = nil
        }
    }

    public func ready() { _ = headsup_sd_notify("READY=1") }
    public func watchdog() { _ = headsup_sd_notify("WATCHDOG=1") }
    public func stopping() { _ = headsup_sd_notify("STOPPING=1") }
    public func status(_ text: String) { _ = headsup_sd_notify("STATUS=\(text)") }
}
