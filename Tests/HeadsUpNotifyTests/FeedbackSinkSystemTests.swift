import Foundation
import Glibc
import HeadsUpDBus
import HeadsUpNotify
import HeadsUpTestSupport
import Logging
import Synchronization
import Testing

@Suite("feedbackd sink against Debian's real feedbackd on a private bus", .serialized)
struct FeedbackSinkSystemTests {
    /// Watches FeedbackEnded on the bus: (event id, reason).
    final class EndWatcher: @unchecked Sendable {
        let connection: DBusConnection
        var ended: [(UInt32, UInt32)] = []
        init(bus: PrivateDBus) throws {
            connection = try DBusConnection(.address(bus.address))
            try connection.addMatch("type='signal',interface='org.sigxcpu.Feedback',member='FeedbackEnded'") { [unowned self] signal in
                ended.append((UInt32(signal.arguments[0].integer ?? -1), UInt32(truncatingIfNeeded: signal.arguments[1].integer ?? -1)))
            }
        }
        func wait(for count: Int, timeout: Double) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while ended.count < count, Date() < deadline { try? connection.process(timeout: 0.1) }
            return ended.count >= count
        }
    }

    func setUp() throws -> (PrivateDBus, Feedbackd, EndWatcher) {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        try requireCapability(Feedbackd.unavailableReason == nil, Feedbackd.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let daemon = try Feedbackd(bus: bus)
        return (bus, daemon, try EndWatcher(bus: bus))
    }

    func sink(_ event: String, timeout: Int, bus: PrivateDBus, log: LogRecorder) -> FeedbackSink {
        var configuration = FeedbackSink.Configuration()
        configuration.event = event
        configuration.timeout = timeout
        return FeedbackSink(configuration: configuration, bus: .address(bus.address), logger: log.logger)
    }

    @Test func aWarningPlaysUntilTheUserAcknowledgesIt() throws {
        let (bus, daemon, watcher) = try setUp()
        let log = LogRecorder()
        let sink = sink("long-warning", timeout: 30, bus: bus, log: log)
        try sink.deliver(sample)
        #expect(eventually { daemon.log.contains("Running 1 feedbacks for event 1") }, "\(daemon.log)")
        #expect(!watcher.wait(for: 1, timeout: 1), "a 60 s feedback is still playing")
        sink.acknowledge()
        #expect(watcher.wait(for: 1, timeout: 5))
        #expect(watcher.ended.first.map { $0 == (1, 2) } == true, "ended by EndFeedback: \(watcher.ended)")
        sink.close()
    }

    /// notifications.feedback_timeout: feedbackd repeats the theme's event
    /// (a short buzz) for that many seconds when nobody acknowledges, then
    /// ends it by itself.
    @Test func anUnacknowledgedWarningRepeatsUntilTheTimeout() throws {
        let (bus, daemon, watcher) = try setUp()
        let log = LogRecorder()
        let sink = sink("short-warning", timeout: 2, bus: bus, log: log)
        let start = Date()
        try sink.deliver(sample)
        #expect(watcher.wait(for: 1, timeout: 10), "\(daemon.log)")
        let elapsed = Date().timeIntervalSince(start)
        // feedbackd's timer has a granularity of a second (g_timeout_add_seconds): 1-2 s, where one play lasts 0.3 s.
        #expect(elapsed >= 1 && elapsed < 4, "the 0.3 s event repeated for 2 s, ended after \(elapsed) s")
        #expect(watcher.ended.first?.1 == 0, "ended by itself, not by EndFeedback: \(watcher.ended)")
        sink.close()
    }

    @Test func aShortEventEndsByItselfAndTheSinkLetsItFinishBeforeClosing() throws {
        let (bus, daemon, watcher) = try setUp()
        let log = LogRecorder()
        let sink = sink("short-warning", timeout: -1, bus: bus, log: log)
        try sink.deliver(sample)
        let start = Date()
        sink.close()
        #expect(Date().timeIntervalSince(start) < 5)
        #expect(watcher.wait(for: 1, timeout: 5))
        #expect(watcher.ended.first?.1 == 0, "finished on its own, not cut off by the close: \(watcher.ended) \(daemon.log)")
    }

    @Test func anEventTheThemeLacksIsReported() throws {
        // The daemon is kept: dropped, it would stop and the bus would start the system's feedbackd instead.
        let (bus, daemon, _) = try setUp()
        let log = LogRecorder()
        let sink = sink("no-such-event", timeout: -1, bus: bus, log: log)
        try sink.deliver(sample)
        sink.close()
        #expect(log.text.contains("has nothing for event 'no-such-event'"), "\(log.text)")
        #expect(daemon.log.contains("Event 'no-such-event' for 'headsup'"), "the test's feedbackd answered: \(daemon.log)")
    }

    @Test func withoutFeedbackdTheSinkSaysSoOnceAndNeverFails() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let log = LogRecorder()
        var configuration = FeedbackSink.Configuration()
        configuration.event = "short-warning"
        // The private bus may activate the system's feedbackd; a bus without it is what a board has.
        let sink = FeedbackSink(configuration: configuration, bus: .address("unix:path=/nonexistent/headsup-test-bus"), logger: log.logger)
        try sink.deliver(sample)
        try sink.deliver(sample)
        #expect(log.text.components(separatedBy: "will not vibrate").count - 1 == 1, "\(log.text)")
        _ = bus
    }
}
