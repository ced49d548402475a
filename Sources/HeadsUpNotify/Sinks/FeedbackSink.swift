import Foundation
import HeadsUpDBus
import HeadsUpSystem
import Logging

/// feedbackd (org.sigxcpu.Feedback on the session bus), the daemon Phosh
/// phones run for haptic, sound and LED feedback: a warning triggers an
/// event of the phone's feedback theme, repeated for `timeout` seconds
/// unless the user acknowledges the warning first (the notification's
/// Dismiss or Snooze, `headsup snooze`). feedbackd ends an event whose
/// client disconnects, so the sink keeps its connection open.
public final class FeedbackSink: NotificationSink, @unchecked Sendable {
    public struct Configuration: Sendable, Equatable {
        /// An event name from feedbackd's theme (its Event-naming spec has no
        /// "warning"; alarm-clock-elapsed vibrates and sounds in the default theme).
        public var event = "alarm-clock-elapsed"
        /// Seconds the event repeats; -1 plays it once.
        public var timeout = 10
        /// The id feedbackd's per-application settings know HeadsUp by.
        public var appID = "headsup"

        public init() {}
    }

    /// Why feedbackd ended an event (its FeedbackEnded signal).
    public enum EndReason: Sendable, Equatable {
        case finished, ended, notFound
        case other(UInt32)

        init(_ code: UInt32) {
            switch code {
            case 0, 1: self = .finished
            case 2: self = .ended
            case UInt32.max: self = .notFound
            default: self = .other(code)
            }
        }
    }

    public let name = "feedback"
    public let configuration: Configuration
    private let logger: Logger
    private let bus: DBusConnection.Bus
    private var connection: DBusConnection?
    /// Events triggered and not yet ended.
    private(set) var running: Set<UInt32> = []
    private var toldMissing = false
    private static let service = "org.sigxcpu.Feedback"
    private static let path = "/org/sigxcpu/Feedback"

    public init(configuration: Configuration = Configuration(), bus: DBusConnection.Bus = .session, logger: Logger) {
        self.configuration = configuration
        self.bus = bus
        self.logger = logger
    }

    public func deliver(_ notification: NotificationMessage) throws {
        let connection: DBusConnection
        do { connection = try connect() } catch {
            // No session bus (a board's system service): no phone to vibrate, nothing to retry.
            tellMissing("cannot reach the session bus (\(error))")
            return
        }
        do {
            try connection.process(timeout: 0)
            let reply = try connection.call(
                destination: Self.service, path: Self.path, interface: Self.service, member: "TriggerFeedback",
                arguments: [
                    .string(configuration.appID), .string(configuration.event), .dictionary(keySignature: "s", valueSignature: "v", []),
                    .int32(Int32(configuration.timeout)),
                ])
            if let id = reply.first?.integer { running.insert(UInt32(truncatingIfNeeded: id)) }
        } catch let error where Self.isAbsent(error) {
            // Not a Phosh phone (or feedbackd is not installed): nothing to retry.
            tellMissing("feedbackd is not running on the session bus (\(error))")
            self.connection = nil
        } catch {
            self.connection = nil
            throw SinkError(sink: name, message: "\(error) (is feedbackd running on the session bus?)")
        }
    }

    /// Ends the events still playing.
    public func acknowledge() {
        guard let connection else { return }
        try? connection.process(timeout: 0)
        for id in running.sorted() {
            do {
                try connection.call(
                    destination: Self.service, path: Self.path, interface: Self.service, member: "EndFeedback", arguments: [.uint32(id)])
            } catch {
                logger.warning("feedback: ending event \(id): \(error)")
            }
        }
        running.removeAll()
    }

    /// Lets the events that are playing finish (up to `timeout` seconds, at
    /// most 10) before the connection closes, since closing ends them.
    public func close() {
        guard let connection else { return }
        let clock = SystemMonotonicClock()
        let deadline = clock.now() + Double(min(max(configuration.timeout, 1), 10))
        while !running.isEmpty, clock.now() < deadline { try? connection.process(timeout: 0.2) }
        self.connection = nil
    }

    private func tellMissing(_ why: String) {
        if !toldMissing { logger.notice("feedback: \(why); warnings will not vibrate or sound through feedbackd") }
        toldMissing = true
    }

    private func connect() throws(DBusError) -> DBusConnection {
        if let connection { return connection }
        let connection = try DBusConnection(bus)
        try connection.addMatch("type='signal',sender='\(Self.service)',interface='\(Self.service)',member='FeedbackEnded'") { [weak self] signal in
            guard let self, signal.arguments.count >= 2, let id = signal.arguments[0].integer, let code = signal.arguments[1].integer else { return }
            let reason = EndReason(UInt32(truncatingIfNeeded: code))
            guard running.remove(UInt32(truncatingIfNeeded: id)) != nil else { return }
            if reason == .notFound {
                logger.warning(
                    "feedback: the phone's feedback theme has nothing for event '\(configuration.event)' in its current profile; set notifications.feedback_event to one it has"
                )
            }
        }
        self.connection = connection
        return connection
    }

    private static func isAbsent(_ error: any Error) -> Bool {
        guard let error = error as? DBusError, let name = error.name else { return false }
        return ["org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner"].contains(name)
    }
}
