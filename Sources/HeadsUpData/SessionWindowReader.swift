/// Everything between a session file and model windows, composed: read,
/// convert units, clean, resample, window. What `headsup dataset`, the
/// evaluator and the training tool's cross-check all use.
public final class SessionWindowReader {
    public private(set) var stream: SessionStream
    public private(set) var windower: Windower
    private var ready: [MotionWindow] = []
    private var readyIndex = 0
    private var finished = false

    public init(
        path: String,
        csv: SessionCSVOptions = .init(),
        resampling: ResamplingConfiguration = .init(),
        windowing: WindowingConfiguration = .init()
    ) throws(SessionCSVError) {
        stream = try SessionStream(path: path, csv: csv, resampling: resampling)
        windower = Windower(configuration: windowing)
    }

    /// The next window in time order, or `nil` when the file is done.
    public func next() throws(SessionCSVError) -> MotionWindow? {
        while readyIndex == ready.count {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            if finished { return nil }
            finished = try !stream.advance { windower.push($0) { ready.append($0) } }
        }
        defer { readyIndex += 1 }
        return ready[readyIndex]
    }

    /// Reads all remaining windows.
    public func readAll() throws(SessionCSVError) -> [MotionWindow] {
        var windows: [MotionWindow] = []
        while let window = try next() { windows.append(window) }
        return windows
    }
}
