/// When the polling thread wakes and when it hands its readings over.
///
/// All polled devices share one tick on the aligner's 50 Hz grid period:
/// one absolute deadline per tick, so the thread wakes 50 times a second
/// however many devices and channels it reads, and the tick does not drift
/// with the time the reads take. A tick the thread overslept (a loaded
/// machine, a slow device) is skipped, not caught up in a burst: readings
/// are timestamped when read, and the aligner resamples what arrives onto
/// its grid, so a device whose own rate is 40, 59.5 or 80 Hz lands on the
/// same grid points as the others.
///
/// Readings are handed to the consumer every `handOverTicks` ticks of time
/// (one queue push, one wake of the consumer), about as often as a
/// buffered device's refill; a change of state (busy, lost, back) goes at once.
/// Pure logic: times are nanoseconds on a monotonic clock, passed in.
public struct PollSchedule: Sendable, Equatable {
    /// The tick's period: the aligner's grid, 20 ms.
    public static let defaultPeriod: Int64 = 20_000_000
    /// Ticks per hand-over: 12 ticks, 0.24 s (a buffered device refills about every quarter second).
    public static let defaultHandOverTicks = 12

    public let period: Int64
    public let handOverTicks: Int
    /// The deadline of the tick being slept towards.
    public private(set) var deadline: Int64
    /// Ticks read since the last hand-over.
    public private(set) var ticksSinceHandOver = 0
    /// Ticks skipped because the thread woke after the next one's deadline too.
    public private(set) var skippedTicks = 0

    public init(start: Int64, period: Int64 = PollSchedule.defaultPeriod, handOverTicks: Int = PollSchedule.defaultHandOverTicks) {
        precondition(period > 0 && handOverTicks > 0)
        self.period = period
        self.handOverTicks = handOverTicks
        deadline = start
    }

    /// Records a tick's reads, done at `now`; says whether to hand the
    /// readings over now (`urgent`: something other than readings waits),
    /// and moves `deadline` to the next tick after `now`.
    public mutating func ticked(now: Int64, urgent: Bool = false) -> Bool {
        ticksSinceHandOver += 1
        deadline += period
        if deadline <= now {
            let behind = (now - deadline) / period + 1
            skippedTicks += Int(behind)
            deadline += behind * period
            // Skipped ticks count towards the hand-over, so it keeps to time: a device whose
            // reads take several ticks (a one-shot driver) still hands over every 0.24 s.
            ticksSinceHandOver += Int(behind)
        }
        let handOver = urgent || ticksSinceHandOver >= handOverTicks
        if handOver { ticksSinceHandOver = 0 }
        return handOver
    }
}
