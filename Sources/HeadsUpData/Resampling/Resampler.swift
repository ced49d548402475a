/// What the resampler emits: grid samples, and the end of a segment
/// (a gap, or the end of the stream) after which samples are not contiguous.
public enum ResampledEvent: Sendable, Equatable {
    /// `gridIndex` numbers the grid point; consecutive indices are one
    /// period apart.
    case sample(MotionSample, gridIndex: Int64)
    case segmentEnd
}

/// Turns irregular, jittery sensor samples into a regular grid (50 Hz by
/// default), one sample at a time, in constant memory.
///
/// - Samples that do not advance time are dropped (``MonotonicFilter``).
/// - A step longer than ``ResamplingConfiguration/maximumGap`` ends the
///   current segment; the next sample starts a new one.
/// - Within a segment, every grid point between the first and the last
///   sample gets a value by linear interpolation between the two samples
///   around it; the label is the nearer sample's.
///
/// Pure logic: no clock, no I/O. The recorded-data path and the live IIO
/// path both use it, so training data and live input are gridded alike.
public struct Resampler: Sendable {
    public let configuration: ResamplingConfiguration
    private var filter = MonotonicFilter()
    private var previous: MotionSample?
    private var nextGridIndex: Int64 = 0

    public private(set) var inputCount = 0
    public private(set) var outputCount = 0
    public private(set) var segmentCount = 0
    /// Gaps that ended a segment.
    public private(set) var gapCount = 0
    /// Samples dropped for going back (or standing still) in time, or for a
    /// time no clock gives (beyond ``ResamplingConfiguration/largestTime``).
    public var droppedCount: Int { filter.droppedCount + outOfRangeCount }
    private var outOfRangeCount = 0

    public init(configuration: ResamplingConfiguration = .init()) {
        self.configuration = configuration
    }

    /// Whether a sample at `time` would be kept: within the clock range and
    /// after the latest sample kept.
    public func accepts(time: Double) -> Bool {
        guard Self.isClockTime(time) else { return false }
        return filter.latestTime.map { time > $0 } ?? true
    }

    /// A damaged row can carry any time; the grid index of a time past this would not fit in 64 bits.
    private static func isClockTime(_ time: Double) -> Bool { abs(time) <= ResamplingConfiguration.largestTime }

    /// Feeds one sample; `emit` receives the grid samples (and segment ends)
    /// it completes.
    public mutating func push(_ sample: MotionSample, emit: (ResampledEvent) -> Void) {
        inputCount += 1
        guard Self.isClockTime(sample.time) else {
            outOfRangeCount += 1
            return
        }
        guard filter.accept(sample.time) else { return }
        guard let previous, sample.time - previous.time <= configuration.maximumGap else {
            if previous != nil {
                gapCount += 1
                emit(.segmentEnd)
            }
            startSegment(at: sample, emit: emit)
            return
        }
        var gridTime = configuration.time(ofGridIndex: nextGridIndex)
        while gridTime <= sample.time {
            emit(.sample(MotionSample.interpolate(previous, sample, at: gridTime), gridIndex: nextGridIndex))
            outputCount += 1
            nextGridIndex += 1
            gridTime = configuration.time(ofGridIndex: nextGridIndex)
        }
        self.previous = sample
    }

    /// Ends the stream: the last segment is closed.
    public mutating func finish(emit: (ResampledEvent) -> Void) {
        if previous != nil { emit(.segmentEnd) }
        previous = nil
    }

    private mutating func startSegment(at sample: MotionSample, emit: (ResampledEvent) -> Void) {
        segmentCount += 1
        previous = sample
        nextGridIndex = configuration.firstGridIndex(atOrAfter: sample.time)
        if configuration.time(ofGridIndex: nextGridIndex) == sample.time {
            emit(.sample(sample, gridIndex: nextGridIndex))
            outputCount += 1
            nextGridIndex += 1
        }
    }
}
