import Foundation
import HeadsUpSystem
import Logging

/// Delivers warnings to every sink on a background thread, retrying a
/// failing sink a bounded number of times with backoff. The pipeline only
/// enqueues and goes on; a slow or broken sink never holds it up. State
/// updates travel the same queue, so a sink sees them in order with the
/// warnings, but they are never retried: the next one supersedes them.
public final class NotificationDispatcher: @unchecked Sendable {
    public struct Counters: Sendable, Equatable {
        public var sent = 0
        public var failed = 0
        public var retried = 0
        public var droppedFromQueue = 0
        /// State updates queued for the sinks that mirror state.
        public var stateUpdates = 0
    }

    private let sinks: [any NotificationSink]
    private let mirrorsState: Bool
    private let retries: Int
    private let backoff: Double
    private let logger: Logger
    private let condition = MonotonicCondition()
    private enum Item {
        case warning(NotificationMessage)
        case state(StateUpdate)
        case acknowledged
    }

    private var queue: [Item] = []
    private var stopping = false
    private var busy = false
    private var exited = false
    private var thread: Thread?
    private var counts = Counters()
    /// More queued notifications than this drop the oldest.
    public let capacity = 100

    /// Extra attempts for a failing sink.
    public static let defaultRetries = 2

    public init(sinks: [any NotificationSink], retries: Int = defaultRetries, backoff: Double = 0.5, logger: Logger) {
        self.sinks = sinks
        mirrorsState = sinks.contains { $0.mirrorsState }
        self.retries = retries
        self.backoff = backoff
        self.logger = logger
        // The thread holds the dispatcher until it has stopped (finish), so
        // it never outlives what it reads.
        let thread = Thread { [self] in self.run() }
        thread.name = "headsup-notify"
        self.thread = thread
        thread.start()
    }

    public var counters: Counters {
        condition.lock()
        defer { condition.unlock() }
        return counts
    }

    public func enqueue(_ notification: NotificationMessage) {
        append(.warning(notification))
    }

    /// Hands a state change to the sinks that mirror state; with none, it
    /// costs nothing (no queueing, no wake-up).
    public func update(_ state: StateUpdate) {
        guard mirrorsState else { return }
        append(.state(state))
        record { $0.stateUpdates += 1 }
    }

    /// Tells the sinks the user has seen the warning.
    public func acknowledge() {
        append(.acknowledged)
    }

    /// A full queue drops the oldest state update first (a newer one
    /// supersedes it), and a warning only when it holds nothing else.
    private func append(_ item: Item) {
        condition.lock()
        if queue.count >= capacity {
            if let state = queue.firstIndex(where: { if case .state = $0 { true } else { false } }) {
                queue.remove(at: state)
            } else {
                queue.removeFirst()
                counts.droppedFromQueue += 1
            }
        }
        queue.append(item)
        condition.signal()
        condition.unlock()
    }

    /// Waits (up to `timeout`) for the queue to drain, then stops the thread,
    /// waits for it to finish the delivery it is in and closes the sinks.
    public func finish(timeout: Double = 10) {
        let clock = SystemMonotonicClock()
        let deadline = clock.now() + timeout
        condition.lock()
        while !queue.isEmpty || busy, clock.now() < deadline { condition.wait(until: min(deadline, clock.now() + 0.05)) }
        stopping = true
        queue.removeAll()
        condition.broadcast()
        while !exited { condition.wait(seconds: 0.05) }
        condition.unlock()
        for sink in sinks { sink.close() }
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopping { condition.wait() }
            if stopping && queue.isEmpty {
                exited = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let item = queue.removeFirst()
            busy = true
            condition.unlock()
            switch item {
            case .warning(let notification): for sink in sinks { deliver(notification, to: sink) }
            case .state(let state): for sink in sinks { sink.update(state) }
            case .acknowledged: for sink in sinks { sink.acknowledge() }
            }
            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }
    }

    private func deliver(_ notification: NotificationMessage, to sink: any NotificationSink) {
        var delay = backoff
        for attempt in 0...retries {
            do {
                try sink.deliver(notification)
                record { $0.sent += 1 }
                return
            } catch {
                if attempt == retries {
                    record { $0.failed += 1 }
                    logger.error("notification via \(sink.name) failed after \(retries + 1) attempts: \(error)")
                    return
                }
                record { $0.retried += 1 }
                logger.warning("notification via \(sink.name) failed (\(error)); retrying in \(delay) s")
                Thread.sleep(forTimeInterval: delay)
                delay *= 2
            }
        }
    }

    private func record(_ change: (inout Counters) -> Void) {
        condition.lock()
        change(&counts)
        condition.unlock()
    }
}
