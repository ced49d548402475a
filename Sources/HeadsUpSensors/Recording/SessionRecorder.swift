import HeadsUpData
import HeadsUpSystem

/// Writes 50 Hz samples to a session CSV with a label that can change
/// mid-recording, flushing (write + fsync) at least every `flushInterval`
/// seconds of data, so a crash loses at most that much. Samples arrive on
/// the monotonic clock; the file gets wall-clock time (the seed format),
/// anchored once, so it stays continuous whatever the wall clock does later.
public final class SessionRecorder {
    public let writer: SessionCSVWriter
    public let flushInterval: Double
    public var label: ActivityLabel
    private var lastFlushTime: Double?
    public private(set) var firstTime: Double?
    public private(set) var lastTime: Double?
    public private(set) var sampleCount = 0
    /// Grid points missing between consecutive samples (gaps in the stream).
    public private(set) var missingCount = 0
    private var lastIndex: Int64?
    /// Wall-clock seconds at monotonic zero, read once when recording starts.
    public let wallAnchor: Double

    public init(writer: SessionCSVWriter, label: ActivityLabel, flushInterval: Double = 1, wallAnchor: Double = 0) {
        self.writer = writer
        self.wallAnchor = wallAnchor
        self.label = label
        self.flushInterval = flushInterval
    }

    /// Appends a grid sample; flushes when a second of data has passed.
    public func record(_ event: ResampledEvent) throws(SystemCallError) {
        guard case .sample(let sample, let index) = event else { return }
        if let lastIndex, index > lastIndex + 1 { missingCount += Int(index - lastIndex - 1) }
        lastIndex = index
        var stamped = sample
        stamped.time += wallAnchor
        writer.append(stamped, label: label)
        sampleCount += 1
        firstTime = firstTime ?? sample.time
        lastTime = sample.time
        if let lastFlushTime, sample.time - lastFlushTime < flushInterval { return }
        try flush(at: sample.time)
    }

    /// Flushes now (also called on a timer when no samples arrive).
    public func flush(at time: Double? = nil) throws(SystemCallError) {
        try writer.flush()
        lastFlushTime = time ?? lastTime
    }

    /// Samples per second of recording so far.
    public var effectiveRate: Double {
        guard let firstTime, let lastTime, lastTime > firstTime else { return 0 }
        return Double(sampleCount - 1) / (lastTime - firstTime)
    }

    public func close() throws(SystemCallError) { try writer.close() }
}
