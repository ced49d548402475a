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
    /// The phone that recorded it and the pose it was held in
    /// (SessionTraits); nil when nothing names them.
    public var phone: String? = nil
    public var pose: String? = nil

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
        evaluate(try RecordedSession(path: path, name: name, csv: csv, resampling: resampling, progress: progress), screen: screen)
    }

    /// Samples already in memory (a spliced transition, say), in time order.
    public func evaluate(samples: [MotionSample], name: String, screen: ScreenTrack = ScreenTrack()) -> SessionEvaluation {
        evaluate(RecordedSession(samples: samples, name: name, resampling: resampling), screen: screen)
    }

    /// A session already read, through the pipeline as `live` runs it. The
    /// figures follow the pipeline's own events: each scored window's label
    /// and warnable state, and the changes of that state (the tracker's,
    /// held back by the screen gate while the track says the phone is not
    /// in use).
    public func evaluate(_ session: RecordedSession, screen: ScreenTrack = ScreenTrack()) -> SessionEvaluation {
        let pipeline = HeadsUpPipeline(
            scorer: scorer, configuration: .init(windowing: windowing, distraction: distraction, rate: resampling.rate))
        pipeline.maximumBacklog = .max
        let origin = session.origin ?? 0
        var windows: [SessionEvaluation.Window] = []
        var transitions: [(time: Double, distracted: Bool)] = []
        var labelRuns: [(label: Int, start: Double, end: Double)] = []
        /// Screen changes not yet given to the pipeline, in session-relative time.
        var screenChanges = screen.changes[...]
        func record(_ outputs: [PipelineEvent], at screenTime: Double? = nil) {
            for output in outputs {
                switch output {
                case .scored(let window):
                    windows.append(
                        .init(
                            time: window.time - origin, label: window.label == .hands ? 1 : 0, score: window.score, smoothed: window.smoothed,
                            distracted: window.warnable, steady: false, walking: window.walking))
                // A change the screen made happens at the track's time, as written.
                case .warnable(.becameDistracted(let time)): transitions.append((screenTime ?? time - origin, true))
                case .warnable(.becameAttentive(let time)): transitions.append((screenTime ?? time - origin, false))
                default: break
                }
            }
        }
        for batch in session.batches {
            var start = batch.startIndex
            for (index, event) in zip(batch.indices, batch) {
                guard case .sample(let sample, _) = event else { continue }
                let relative = sample.time - origin
                if let label = sample.label {
                    if let last = labelRuns.last, last.label == label.rawValue, relative - last.end < 1 {
                        labelRuns[labelRuns.count - 1].end = relative
                    } else {
                        labelRuns.append((label.rawValue, relative, relative))
                    }
                }
                // The screen's state changes before the first sample at or after its time.
                while let change = screenChanges.first, relative >= change.time {
                    if index > start { record(pipeline.process(samples: Array(batch[start..<index]))) }
                    start = index
                    record(pipeline.process(screen: change.state, at: change.time + origin), at: change.time)
                    screenChanges.removeFirst()
                }
            }
            record(pipeline.process(samples: Array(batch[start...])))
        }

        // A window is steady when it lies inside one label run, the settle margin from both of its ends.
        let windowSeconds = Double(windowing.length - 1) / Double(resampling.rate)
        for index in windows.indices {
            let (start, end) = (windows[index].time - windowSeconds, windows[index].time)
            windows[index].steady = labelRuns.contains { start >= $0.start + settle && end <= $0.end - settle }
        }
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
        var evaluation = SessionEvaluation(
            session: session.name, windows: windows, stretches: stretches, metrics: metrics, steadyMetrics: steadyMetrics,
            decisionAccuracy: decisionAccuracy, droppedSamples: session.leftOut.droppedSamples)
        if session.leftOut.path != nil { evaluation.skippedRows = session.leftOut.skippedRows }
        return evaluation
    }
}
