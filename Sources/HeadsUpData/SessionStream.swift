/// A recorded session on the 50 Hz grid: its samples (from a session CSV,
/// or already in memory), the session's origin and the resampler, composed
/// once. Every mode that plays a recording (replay, evaluate, live
/// --simulate, dataset windows, the spliced transitions) reads it through
/// here, so they take the same reading options and report the same counts
/// of what reading left out.
public struct SessionStream {
    /// The CSV being read; nil for samples in memory.
    public let reader: SessionCSVReader?
    private var memory: IndexingIterator<[MotionSample]>?
    public private(set) var resampler: Resampler
    /// The first sample's time: session-relative times count from it.
    public private(set) var origin: Double?
    /// `csv.perturbation`'s rate, when it sets one, and what it has made but not handed out.
    private var rateConverter: RateConverter?
    private var converted: [MotionSample] = []
    private var convertedIndex = 0

    /// The session CSV at `path`.
    public init(path: String, csv: SessionCSVOptions = .init(), resampling: ResamplingConfiguration = .init()) throws(SessionCSVError) {
        reader = try SessionCSVReader(path: path, options: csv)
        resampler = Resampler(configuration: resampling)
        if let rate = csv.perturbation?.rate { rateConverter = RateConverter(rate: rate, maximumGap: resampling.maximumGap) }
    }

    /// Samples already in memory (a spliced transition), in time order.
    public init(samples: [MotionSample], resampling: ResamplingConfiguration = .init()) {
        reader = nil
        memory = samples.makeIterator()
        resampler = Resampler(configuration: resampling)
    }

    /// The next sample as recorded, not yet on the grid; nil at the end.
    public mutating func read() throws(SessionCSVError) -> MotionSample? {
        let sample = try rateConverter == nil ? recorded() : convertedSample()
        if origin == nil, let sample { origin = sample.time }
        return sample
    }

    private mutating func recorded() throws(SessionCSVError) -> MotionSample? {
        try reader?.next() ?? memory?.next()
    }

    /// The next sample at the perturbed rate.
    private mutating func convertedSample() throws(SessionCSVError) -> MotionSample? {
        while convertedIndex == converted.count {
            converted.removeAll(keepingCapacity: true)
            convertedIndex = 0
            guard let sample = try recorded() else { return nil }
            rateConverter!.push(sample) { converted.append($0) }
        }
        defer { convertedIndex += 1 }
        return converted[convertedIndex]
    }

    /// Puts `sample` (read here, or a copy of one re-timed) on the grid.
    public mutating func push(_ sample: MotionSample, emit: (ResampledEvent) -> Void) {
        resampler.push(sample, emit: emit)
    }

    /// The grid's last events, once the samples are done.
    public mutating func finish(emit: (ResampledEvent) -> Void) {
        resampler.finish(emit: emit)
    }

    /// Reads the next sample onto the grid; at the end, the grid's last
    /// events and false.
    public mutating func advance(emit: (ResampledEvent) -> Void) throws(SessionCSVError) -> Bool {
        guard let sample = try read() else {
            finish(emit: emit)
            return false
        }
        push(sample, emit: emit)
        return true
    }

    /// What reading left out so far.
    public var leftOut: LeftOut {
        LeftOut(path: reader?.report.path, skippedRows: reader?.report.skippedRowCount ?? 0, droppedSamples: resampler.droppedCount)
    }

    /// Rows and samples a session lost on the way to the grid, for the user to be told.
    public struct LeftOut: Sendable, Equatable {
        public var path: String?
        /// Malformed rows skipped (only when reading leniently).
        public var skippedRows: Int
        /// Samples the resampler dropped: times that go back, or that no clock gives.
        public var droppedSamples: Int

        public init(path: String?, skippedRows: Int, droppedSamples: Int) {
            (self.path, self.skippedRows, self.droppedSamples) = (path, skippedRows, droppedSamples)
        }

        /// One note each, when anything was left out.
        public var notes: [String] {
            var notes: [String] = []
            if skippedRows > 0 { notes.append("\(skippedRows) malformed rows skipped (--lenient)") }
            if droppedSamples > 0 {
                let stats = path.map { " (`headsup dataset stats \($0)` shows where)" } ?? ""
                notes.append("\(droppedSamples) samples dropped for times that go back or that no clock gives" + stats)
            }
            return notes
        }
    }
}
