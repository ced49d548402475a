import HeadsUpData
import HeadsUpPipeline

/// One session replayed through the live pipeline: every scored window and
/// the decision state, with the true labels.
public struct SessionEvaluation: Sendable, Codable {
    public struct Window: Sendable, Codable, Equatable {
        /// Seconds since the session start (window end).
        public var time: Double
        public var label: Int
        public var score: Double
        public var smoothed: Double
        public var distracted: Bool
        /// The whole window lies at least the settle margin away from the
        /// session's start and end, a gap and a label change: the phone is
        /// not being put into or taken out of the pocket.
        public var steady: Bool
        /// The walking detector's state when the window was scored.
        public var walking: Bool
    }

    /// A warning-worthy decision (the state becoming distracted) or its absence.
    public struct Stretch: Sendable, Codable, Equatable {
        public var label: Int
        public var start: Double
        public var end: Double
        /// Hands stretches: seconds from the start to the first distracted state; nil when missed.
        public var detectionLatency: Double?
        /// Pocket stretches: times the state became distracted.
        public var falseEpisodes: Int
        /// Pocket stretches: false episodes that begin inside the steady part
        /// (the stretch less the settle margin at both ends). One that began
        /// during the pocketing motion and lingers is a transition's.
        public var steadyFalseEpisodes: Int
        /// Seconds of the stretch outside the settle margins.
        public var steadySeconds: Double
    }

    public var session: String
    public var windows: [Window]
    public var stretches: [Stretch]
    public var metrics: BinaryMetrics
    /// The window metrics over steady windows only.
    public var steadyMetrics: BinaryMetrics
    /// Accuracy of the smoothed decision state against the window labels.
    public var decisionAccuracy: Double
    /// Samples the resampler dropped (back in time, or at no clock's time).
    public var droppedSamples: Int? = nil
    /// Malformed rows skipped under lenient reading.
    public var skippedRows: Int? = nil
    /// Where the phone was carried in the session's not-distracted parts
    /// (CarryPosition); nil when nothing names it.
    public var position: String? = nil

    /// The share of windows scored while the user walked.
    public var walkingFraction: Double { windows.isEmpty ? 0 : Double(windows.filter(\.walking).count) / Double(windows.count) }

    public var handsSeconds: Double { stretches.filter { $0.label == 1 }.map { $0.end - $0.start }.reduce(0, +) }
    public var pocketSeconds: Double { stretches.filter { $0.label == 0 }.map { $0.end - $0.start }.reduce(0, +) }
}

/// Replays sessions exactly as `headsup live` would see them: cleaning,
/// 50 Hz resampling, windows with the live hop, the model, the smoothing
/// and the decision rule.
public struct SessionEvaluator {
    public let scorer: any WindowScorer
    public let windowing: WindowingConfiguration
    public let distraction: DistractionConfiguration
    public let threshold: Double
    public let resampling: ResamplingConfiguration
    public let csv: SessionCSVOptions
    /// Seconds at each session start and end, gap and label change whose
    /// windows count as transitions, not steady state.
    public let settle: Double
    public static let defaultSettle = 5.0

    public init(
        scorer: any WindowScorer, windowing: WindowingConfiguration, distraction: DistractionConfiguration, threshold: Double,
        resampling: ResamplingConfiguration = .init(), csv: SessionCSVOptions = .init(), settle: Double = defaultSettle
    ) {
        self.settle = settle
        self.scorer = scorer
        self.windowing = windowing
        self.distraction = distraction
        self.threshold = threshold
        self.resampling = resampling
        self.csv = csv
    }

    /// A session CSV; `progress` gets the rows read so far. With a `screen`
    /// track, decisions count as distracted only while the screen allows
    /// use, as warnings do under `only_while_screen_on`; scores are unchanged.
    public func evaluate(
        path: String, name: String, screen: ScreenTrack = ScreenTrack(), progress: (Double) -> Void = { _ in }
    ) throws -> SessionEvaluation {
        var stream = try SessionStream(path: path, csv: csv, resampling: resampling)
        var evaluation = try evaluate(&stream, name: name, screen: screen, progress: progress)
        evaluation.skippedRows = stream.leftOut.skippedRows
        return evaluation
    }

    /// Samples already in memory (a spliced transition, say), in time order.
    public func evaluate(samples: [MotionSample], name: String, screen: ScreenTrack = ScreenTrack()) -> SessionEvaluation {
        var stream = SessionStream(samples: samples, resampling: resampling)
        // Samples in memory cannot fail to read.
        return try! evaluate(&stream, name: name, screen: screen, progress: { _ in })
    }

    /// The stream's samples through the pipeline, to its end.
    func evaluate(
        _ stream: inout SessionStream, name: String, screen: ScreenTrack, progress: (Double) -> Void
    ) throws(SessionCSVError) -> SessionEvaluation {
        let pipeline = HeadsUpPipeline(
            scorer: scorer, configuration: .init(windowing: windowing, distraction: distraction, rate: resampling.rate))
        pipeline.maximumBacklog = .max
        var labelsByIndex: [Int64: ActivityLabel] = [:]
        var origin = 0.0
        var windows: [SessionEvaluation.Window] = []
        var transitions: [(time: Double, distracted: Bool)] = []
        var labelRuns: [(label: Int, start: Double, end: Double)] = []
        func consume(_ events: [ResampledEvent]) {
            for event in events {
                if case .sample(let s, let index) = event, let label = s.label {
                    labelsByIndex[index] = label
                    let relative = s.time - origin
                    if let last = labelRuns.last, last.label == label.rawValue, relative - last.end < 1 {
                        labelRuns[labelRuns.count - 1].end = relative
                    } else {
                        labelRuns.append((label.rawValue, relative, relative))
                    }
                }
            }
            // Label each scored window from the grid labels it covers (majority; a tie goes to the last sample).
            for output in pipeline.process(samples: events) {
                switch output {
                case .scored(let time, let score, let smoothed, let distracted, let walking):
                    let end = Int64((time * Double(resampling.rate)).rounded())
                    let hands = (end - Int64(windowing.length) + 1...end).filter { labelsByIndex[$0] == .hands }.count
                    let majority = ActivityLabel.majority(handsCount: hands, of: windowing.length, last: labelsByIndex[end])
                    let label = majority == .hands ? 1 : 0
                    windows.append(
                        .init(
                            time: time - origin, label: label, score: score, smoothed: smoothed, distracted: distracted, steady: false,
                            walking: walking))
                case .distraction(.becameDistracted(let time)): transitions.append((time - origin, true))
                case .distraction(.becameAttentive(let time)): transitions.append((time - origin, false))
                default: break
                }
            }
            // Keep the label map small: windows never look back further than their length.
            if let newest = labelsByIndex.keys.max(), labelsByIndex.count > 4 * windowing.length {
                labelsByIndex = labelsByIndex.filter { $0.key > newest - Int64(2 * windowing.length) }
            }
        }
        var batch: [ResampledEvent] = []
        var count = 0
        while let sample = try stream.read() {
            origin = stream.origin!
            stream.push(sample) { batch.append($0) }
            count += 1
            if batch.count >= 500 {
                consume(batch)
                batch.removeAll(keepingCapacity: true)
                progress(Double(count))
            }
        }
        stream.finish { batch.append($0) }
        if stream.origin != nil { consume(batch) }

        // A window is steady when it lies inside one label run, the settle margin from both of its ends.
        let windowSeconds = Double(windowing.length - 1) / Double(resampling.rate)
        for index in windows.indices {
            let (start, end) = (windows[index].time - windowSeconds, windows[index].time)
            windows[index].steady = labelRuns.contains { start >= $0.start + settle && end <= $0.end - settle }
        }
        if !screen.changes.isEmpty { (windows, transitions) = Self.gated(windows, transitions, by: screen) }
        func isDistracted(at time: Double) -> Bool { transitions.last { $0.time <= time }?.distracted ?? false }
        let stretches = labelRuns.map { run -> SessionEvaluation.Stretch in
            let steadyStart = run.start + settle
            let steadyEnd = run.end - settle
            let steadySeconds = max(0, steadyEnd - steadyStart)
            if run.label == 1 {
                // From the stretch start: the first time the state is distracted (already, or becoming so).
                let latency =
                    isDistracted(at: run.start)
                    ? 0 : transitions.first { $0.distracted && $0.time >= run.start && $0.time <= run.end }.map { $0.time - run.start }
                return .init(
                    label: 1, start: run.start, end: run.end, detectionLatency: latency, falseEpisodes: 0, steadyFalseEpisodes: 0,
                    steadySeconds: steadySeconds)
            }
            let episodes = transitions.filter { $0.distracted && $0.time >= run.start && $0.time <= run.end }.count
            let steadyEpisodes = transitions.filter { $0.distracted && $0.time >= steadyStart && $0.time <= steadyEnd }.count
            return .init(
                label: 0, start: run.start, end: run.end, detectionLatency: nil, falseEpisodes: episodes, steadyFalseEpisodes: steadyEpisodes,
                steadySeconds: steadySeconds)
        }
        let metrics = BinaryMetrics(scores: windows.map(\.score), labels: windows.map { $0.label == 1 }, threshold: threshold)
        let steadyWindows = windows.filter(\.steady)
        let steadyMetrics = BinaryMetrics(scores: steadyWindows.map(\.score), labels: steadyWindows.map { $0.label == 1 }, threshold: threshold)
        let decisionAccuracy = windows.isEmpty ? 0 : Double(windows.filter { ($0.label == 1) == $0.distracted }.count) / Double(windows.count)
        return SessionEvaluation(
            session: name, windows: windows, stretches: stretches, metrics: metrics, steadyMetrics: steadyMetrics, decisionAccuracy: decisionAccuracy,
            droppedSamples: stream.leftOut.droppedSamples)
    }

    /// The decision state as a warning sees it with the screen gate on:
    /// distracted only while the track says the phone is in use (or says
    /// nothing). It changes where the tracker's state or the screen's does.
    static func gated(
        _ windows: [SessionEvaluation.Window], _ transitions: [(time: Double, distracted: Bool)], by screen: ScreenTrack
    ) -> ([SessionEvaluation.Window], [(time: Double, distracted: Bool)]) {
        let gate = ScreenGate.on
        let gatedWindows = windows.map { window in
            var window = window
            window.distracted = window.distracted && !gate.holdsBack(screen.state(at: window.time))
            return window
        }
        let times = Set(transitions.map(\.time) + screen.changes.map(\.time)).sorted()
        var gatedTransitions: [(time: Double, distracted: Bool)] = []
        var state = false
        for time in times {
            let tracker = transitions.last { $0.time <= time }?.distracted ?? false
            let now = tracker && !gate.holdsBack(screen.state(at: time))
            if now != state {
                gatedTransitions.append((time, now))
                state = now
            }
        }
        return (gatedWindows, gatedTransitions)
    }
}
