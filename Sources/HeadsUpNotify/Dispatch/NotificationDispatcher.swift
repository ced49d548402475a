import Foundation
import HeadsUpSystem
import Logging

/// Delivers warnings to every sink, each on a lane of its own (a queue and
/// a thread, ``SinkLane``), retrying a failing sink a bounded number of
/// times with backoff. The pipeline only enqueues and goes on; a slow or
/// broken sink never holds it up, and never holds up another sink: a
/// webhook that hangs until its timeout delays neither the buzz nor its
/// end. State updates travel each lane's queue, so a sink sees them in
/// order with the warnings, but they are never retried: the next one
/// supersedes them.
public final class NotificationDispatcher: @unchecked Sendable {
    public struct Counters: Sendable, Equatable {
        public var sent = 0
        public var failed = 0
        public var retried = 0
        public var droppedFromQueue = 0
        /// State updates queued for the sinks that mirror state.
        public var stateUpdates = 0
    }

    private let lanes: [SinkLane]
    private let mirrorsState: Bool
    private let logger: Logger
    private let counterBox = CounterBox()
    /// More queued notifications than this (per sink) drop the oldest.
    public let capacity = laneCapacity
    static let laneCapacity = 100

    /// Extra attempts for a failing sink.
    public static let defaultRetries = 2

    public init(sinks: [any NotificationSink], retries: Int = defaultRetries, backoff: Double = 0.5, logger: Logger) {
        mirrorsState = sinks.contains { $0.mirrorsState }
        self.logger = logger
        // The lanes count into the dispatcher's counters through a box that does not hold the dispatcher.
        let counters = counterBox
        lanes = sinks.map { sink in
            SinkLane(sink: sink, retries: retries, backoff: backoff, capacity: Self.laneCapacity, logger: logger) { change in counters.change(change)
            }
        }
    }

    public var counters: Counters { counterBox.value }

    public func enqueue(_ notification: NotificationMessage) {
        for lane in lanes { lane.append(.warning(notification)) }
    }

    /// Hands a state change to the sinks that mirror state; with none, it
    /// costs nothing (no queueing, no wake-up).
    public func update(_ state: StateUpdate) {
        guard mirrorsState else { return }
        for lane in lanes where lane.sink.mirrorsState { lane.append(.state(state)) }
        counterBox.change { $0.stateUpdates += 1 }
    }

    /// Tells the sinks the user has seen the warning.
    public func acknowledge() {
        for lane in lanes { lane.append(.acknowledged) }
    }

    /// Waits (up to `timeout`, for all lanes together) for the queues to
    /// drain, then stops each lane after the delivery it is in and closes
    /// its sink. A lane still stuck in a delivery at the deadline (a sink
    /// that ignores its own timeout) is left behind, its sink not closed
    /// under it, and logged: stopping HeadsUp never waits on a sink.
    public func finish(timeout: Double = 10) {
        let clock = SystemMonotonicClock()
        let deadline = clock.now() + timeout
        for lane in lanes { _ = lane.drain(until: deadline, clock: clock) }
        for lane in lanes {
            if lane.stop(until: max(deadline, clock.now() + 0.1), clock: clock) {
                lane.sink.close()
            } else {
                logger.warning("notification via \(lane.sink.name) still busy after \(timeout) s; not waiting for it")
            }
        }
    }
}

/// The dispatcher's counters, shared with its lanes.
final class CounterBox: @unchecked Sendable {
    private let lock = NSLock()
    private var counts = NotificationDispatcher.Counters()

    var value: NotificationDispatcher.Counters {
        lock.lock()
        defer { lock.unlock() }
        return counts
    }

    func change(_ change: (inout NotificationDispatcher.Counters) -> Void) {
        lock.lock()
        change(&counts)
        lock.unlock()
    }
}
