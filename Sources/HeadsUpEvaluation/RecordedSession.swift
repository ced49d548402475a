import HeadsUpData

/// A session read once onto the 50 Hz grid and kept in memory: every model,
/// splice and sweep candidate of an evaluation replays the same events
/// without reading the file again.
public struct RecordedSession: Sendable {
    public var name: String
    /// The grid's events in the batches the evaluator feeds the pipeline:
    /// cut after the sample that brings a batch to 500 events, as a file is
    /// read. A scored window reports the walking detector's state at the
    /// end of its batch, so the same cuts give the same figures.
    public var batches: [[ResampledEvent]]
    /// The first sample's time: session-relative times count from it.
    public var origin: Double?
    /// What reading left out (malformed rows, samples off the grid).
    public var leftOut: SessionStream.LeftOut

    static let batchSize = 500

    /// The session CSV at `path`; `progress` gets the rows read so far.
    public init(
        path: String, name: String, csv: SessionCSVOptions = .init(), resampling: ResamplingConfiguration = .init(),
        progress: (Double) -> Void = { _ in }
    ) throws(SessionCSVError) {
        var stream = try SessionStream(path: path, csv: csv, resampling: resampling)
        try self.init(&stream, name: name, progress: progress)
    }

    /// Samples already in memory (a spliced transition), in time order.
    public init(samples: [MotionSample], name: String, resampling: ResamplingConfiguration = .init()) {
        var stream = SessionStream(samples: samples, resampling: resampling)
        // Samples in memory cannot fail to read.
        try! self.init(&stream, name: name, progress: { _ in })
    }

    private init(_ stream: inout SessionStream, name: String, progress: (Double) -> Void) throws(SessionCSVError) {
        var batches: [[ResampledEvent]] = []
        var batch: [ResampledEvent] = []
        var count = 0
        while let sample = try stream.read() {
            stream.push(sample) { batch.append($0) }
            count += 1
            if batch.count >= Self.batchSize {
                batches.append(batch)
                batch.removeAll(keepingCapacity: true)
                progress(Double(count))
            }
        }
        stream.finish { batch.append($0) }
        if stream.origin != nil { batches.append(batch) }
        self.name = name
        self.batches = batches
        origin = stream.origin
        leftOut = stream.leftOut
    }

    /// Every grid event, in order.
    public var events: FlattenSequence<[[ResampledEvent]]> { batches.joined() }
}
