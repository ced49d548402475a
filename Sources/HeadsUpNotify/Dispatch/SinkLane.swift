import Foundation
import HeadsUpSystem
import Logging

/// One sink's queue and thread. Each sink delivers on its own, bounded by
/// its own timeout (the webhook's, the command's) and retries: a webhook
/// that hangs holds up only its own lane, never the feedback that buzzes
/// or the acknowledgement that stops the buzz.
final class SinkLane: @unchecked Sendable {
    enum Item {
        case warning(NotificationMessage)
        case state(StateUpdate)
        case acknowledged
    }

    let sink: any NotificationSink
    private let retries: Int
    private let backoff: Double
    private let capacity: Int
    private let logger: Logger
    /// Counts a delivery's outcome into the dispatcher's counters.
    private let record: @Sendable (_ change: @Sendable (inout NotificationDispatcher.Counters) -> Void) -> Void
    private let condition = MonotonicCondition()
    private var queue: [Item] = []
    private var stopping = false
    private var busy = false
    private var exited = false

    init(
        sink: any NotificationSink, retries: Int, backoff: Double, capacity: Int, logger: Logger,
        record: @escaping @Sendable (_ change: @Sendable (inout NotificationDispatcher.Counters) -> Void) -> Void
    ) {
        self.sink = sink
        self.retries = retries
        self.backoff = backoff
        self.capacity = capacity
        self.logger = logger
        self.record = record
        // The thread holds the lane until it has stopped, so it never outlives what it reads.
        let thread = Thread { [self] in run() }
        thread.name = "headsup-notify"
        thread.start()
    }

    /// A full queue drops the oldest state update first (a newer one
    /// supersedes it), and a warning only when it holds nothing else.
    func append(_ item: Item) {
        condition.lock()
        if queue.count >= capacity {
            if let state = queue.firstIndex(where: { if case .state = $0 { true } else { false } }) {
                queue.remove(at: state)
            } else {
                queue.removeFirst()
                record { $0.droppedFromQueue += 1 }
            }
        }
        queue.append(item)
        condition.signal()
        condition.unlock()
    }

    /// Waits until the queue is delivered or `deadline` (CLOCK_MONOTONIC) passes; true when delivered.
    func drain(until deadline: Double, clock: SystemMonotonicClock) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !queue.isEmpty || busy, clock.now() < deadline { condition.wait(until: min(deadline, clock.now() + 0.05)) }
        return queue.isEmpty && !busy
    }

    /// Stops the thread after the delivery it is in, waiting for it until
    /// `deadline`; true when it has stopped (then the sink may be closed).
    func stop(until deadline: Double, clock: SystemMonotonicClock) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        queue.removeAll()
        condition.broadcast()
        while !exited, clock.now() < deadline { condition.wait(until: min(deadline, clock.now() + 0.05)) }
        return exited
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
            case .warning(let notification): deliver(notification)
            case .state(let state): sink.update(state)
            case .acknowledged: sink.acknowledge()
            }
            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }
    }

    private var isStopping: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    private func deliver(_ notification: NotificationMessage) {
        var delay = backoff
        for attempt in 0...retries {
            do {
                try sink.deliver(notification)
                record { $0.sent += 1 }
                return
            } catch {
                if attempt == retries || isStopping {
                    record { $0.failed += 1 }
                    logger.error("notification via \(sink.name) failed after \(attempt + 1) attempts: \(error)")
                    return
                }
                record { $0.retried += 1 }
                logger.warning("notification via \(sink.name) failed (\(error)); retrying in \(delay) s")
                Thread.sleep(forTimeInterval: delay)
                delay *= 2
            }
        }
    }
}
