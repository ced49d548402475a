/// Kernel timestamps onto CLOCK_MONOTONIC, HeadsUp's time base.
///
/// HeadsUp asks each device for monotonic timestamps (writing
/// `current_timestamp_clock`); where that attribute cannot be written, the
/// device keeps stamping with its clock (realtime by default), which a board
/// without a real-time clock steps by days when NTP syncs. Such stamps are
/// converted with the offset between the two clocks, measured at every
/// refill. A step between two refills leaves the refill's earlier samples
/// on the old offset: each stamp takes the offset (new, else the one before
/// the step) that puts it after the previous sample and not in the future.
/// Pure: stamps and clock readings in.
public struct TimestampConverter: Sendable {
    /// device clock − monotonic clock, at the latest refill and before the last step.
    private var offset: Double?
    private var offsetBeforeStep: Double?
    private var lastConverted: Double?
    /// Smaller changes of the offset are the clocks' drift, not a step.
    public static let stepThreshold = 0.5
    /// Slack for the stamp of a sample read a moment after it was taken.
    static let slack = 0.25

    public init() {}

    /// Records the offset measured now (the device clock's reading minus the monotonic one).
    public mutating func measured(offset newOffset: Double) {
        if let offset, abs(newOffset - offset) > Self.stepThreshold { offsetBeforeStep = offset }
        offset = newOffset
    }

    /// `stamp` (seconds on the device clock) in monotonic seconds; `now` is
    /// the monotonic clock's reading at this refill.
    public mutating func convert(_ stamp: Double, now: Double) -> Double {
        guard let offset else { return stamp }
        var converted = stamp - offset
        if let before = offsetBeforeStep, !fits(converted, now: now) {
            let older = stamp - before
            if fits(older, now: now) { converted = older }
        }
        lastConverted = converted
        return converted
    }

    private func fits(_ time: Double, now: Double) -> Bool {
        time <= now + Self.slack && time >= (lastConverted ?? -.infinity) - Self.slack
    }
}
