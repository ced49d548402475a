/// Drops samples that do not move time forward.
///
/// Phone sensor timestamps jitter: a sample can carry a time at or before
/// the previous one. Such a sample cannot be placed on a time axis, so it is
/// dropped (and counted). Time only ever advances past the latest sample
/// kept, so one early sample cannot drag the stream back.
public struct MonotonicFilter: Sendable {
    public private(set) var latestTime: Double?
    public private(set) var droppedCount = 0

    public init() {}

    /// True when `time` moves forward and the sample should be kept.
    public mutating func accept(_ time: Double) -> Bool {
        if let latestTime, time <= latestTime {
            droppedCount += 1
            return false
        }
        latestTime = time
        return true
    }
}
