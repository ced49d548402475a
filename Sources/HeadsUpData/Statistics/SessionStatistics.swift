/// What a recording really contains, measured over raw samples in file
/// order: the figures of the dataset README's table and a few more.
///
/// `gaps`, `largestGap` and `backwardSteps` look at consecutive rows as
/// written (so they match the dataset README); `droppedByCleaning` is what
/// the resampler's monotonic filter discards, which is more, because every
/// row until time passes the latest one is dropped.
public struct SessionStatistics: Sendable {
    /// Steps longer than this count as gaps.
    public let gapThreshold: Double

    public private(set) var rowCount = 0
    public private(set) var earliestTime = Double.infinity
    public private(set) var latestTime = -Double.infinity
    public private(set) var handsRowCount = 0
    public private(set) var pocketRowCount = 0
    public private(set) var labelChangeCount = 0
    /// Consecutive rows more than ``gapThreshold`` apart.
    public private(set) var gapCount = 0
    /// The longest forward step between consecutive rows.
    public private(set) var largestGap = 0.0
    /// Consecutive rows whose time goes backwards.
    public private(set) var backwardStepCount = 0
    public var droppedByCleaning: Int { filter.droppedCount }
    /// Time covered by the data: steps between kept samples, gaps excluded.
    public private(set) var coveredDuration = 0.0
    private var coveredSteps = 0

    private var previousTime: Double?
    private var previousLabel: ActivityLabel?
    private var filter = MonotonicFilter()
    private var latestKeptTime: Double?

    public init(gapThreshold: Double = 0.1) {
        self.gapThreshold = gapThreshold
    }

    public mutating func add(_ sample: MotionSample) {
        rowCount += 1
        earliestTime = min(earliestTime, sample.time)
        latestTime = max(latestTime, sample.time)
        switch sample.label {
        case .hands?: handsRowCount += 1
        case .pocket?: pocketRowCount += 1
        case nil: break
        }
        if let previousLabel, let label = sample.label, label != previousLabel { labelChangeCount += 1 }
        previousLabel = sample.label ?? previousLabel
        if let previousTime {
            let step = sample.time - previousTime
            if step < 0 { backwardStepCount += 1 }
            if step > gapThreshold { gapCount += 1 }
            largestGap = max(largestGap, step)
        }
        previousTime = sample.time
        if filter.accept(sample.time) {
            if let latestKeptTime, sample.time - latestKeptTime <= gapThreshold {
                coveredDuration += sample.time - latestKeptTime
                coveredSteps += 1
            }
            latestKeptTime = sample.time
        }
    }

    /// Last minus first time.
    public var duration: Double { rowCount > 0 ? latestTime - earliestTime : 0 }

    /// Samples per second while the sensor was running (gaps excluded).
    public var effectiveRate: Double { coveredDuration > 0 ? Double(coveredSteps) / coveredDuration : 0 }

    /// The label most rows carry.
    public var majorityLabel: ActivityLabel? {
        if handsRowCount == 0 && pocketRowCount == 0 { return nil }
        return handsRowCount > pocketRowCount ? .hands : .pocket
    }

    /// Rows of the other label than the majority.
    public var minorityRowCount: Int { min(handsRowCount, pocketRowCount) }
}
