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
    }

    public var session: String
    public var windows: [Window]
    public var stretches: [Stretch]
    public var metrics: BinaryMetrics
    /// Accuracy of the smoothed decision state against the window labels.
    public var decisionAccuracy: Double

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

    public init(
        scorer: any WindowScorer, windowing: WindowingConfiguration, distraction: DistractionConfiguration, threshold: Double,
        resampling: ResamplingConfiguration = .init(), csv: SessionCSVOptions = .init()
    ) {
        self.scorer = scorer
        self.windowing = windowing
        self.distraction = distraction
        self.threshold = threshold
        self.resampling = resampling
        self.csv = csv
    }

    public func evaluate(path: String, name: String, progress: (Double) -> Void = { _ in }) throws -> SessionEvaluation {
        let pipeline = HeadsUpPipeline(
            scorer: scorer, configuration: .init(windowing: windowing, distraction: distraction, rate: resampling.rate))
        pipeline.maximumBacklog = .max
        let reader = try SessionCSVReader(path: path, options: csv)
        var resampler = Resampler(configuration: resampling)
        var labelsByIndex: [Int64: ActivityLabel] = [:]
        var origin: Double?
        var windows: [SessionEvaluation.Window] = []
        var transitions: [(time: Double, distracted: Bool)] = []
        var labelRuns: [(label: Int, start: Double, end: Double)] = []
        func consume(_ events: [ResampledEvent]) {
            for event in events {
                if case .sample(let s, let index) = event, let label = s.label {
                    labelsByIndex[index] = label
                    let relative = s.time - origin!
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
                case .scored(let time, let score, let smoothed, let distracted):
                    let end = Int64((time * Double(resampling.rate)).rounded())
                    let hands = (end - Int64(windowing.length) + 1...end).filter { labelsByIndex[$0] == .hands }.count
                    let last = labelsByIndex[end]
                    let label = 2 * hands > windowing.length ? 1 : (2 * hands < windowing.length ? 0 : (last == .hands ? 1 : 0))
                    windows.append(.init(time: time - origin!, label: label, score: score, smoothed: smoothed, distracted: distracted))
                case .distraction(.becameDistracted(let time)): transitions.append((time - origin!, true))
                case .distraction(.becameAttentive(let time)): transitions.append((time - origin!, false))
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
        while let sample = try reader.next() {
            if origin == nil { origin = sample.time }
            resampler.push(sample) { batch.append($0) }
            count += 1
            if batch.count >= 500 {
                consume(batch)
                batch.removeAll(keepingCapacity: true)
                progress(Double(count))
            }
        }
        resampler.finish { batch.append($0) }
        if origin != nil { consume(batch) }

        let stretches = labelRuns.map { run -> SessionEvaluation.Stretch in
            if run.label == 1 {
                // From the stretch start: the first time the state is distracted (already, or becoming so).
                let stateAtStart = transitions.last { $0.time <= run.start }?.distracted ?? false
                let latency =
                    stateAtStart ? 0 : transitions.first { $0.distracted && $0.time >= run.start && $0.time <= run.end }.map { $0.time - run.start }
                return .init(label: 1, start: run.start, end: run.end, detectionLatency: latency, falseEpisodes: 0)
            }
            let episodes = transitions.filter { $0.distracted && $0.time >= run.start && $0.time <= run.end }.count
            return .init(label: 0, start: run.start, end: run.end, detectionLatency: nil, falseEpisodes: episodes)
        }
        let metrics = BinaryMetrics(scores: windows.map(\.score), labels: windows.map { $0.label == 1 }, threshold: threshold)
        let decisionAccuracy = windows.isEmpty ? 0 : Double(windows.filter { ($0.label == 1) == $0.distracted }.count) / Double(windows.count)
        return SessionEvaluation(session: name, windows: windows, stretches: stretches, metrics: metrics, decisionAccuracy: decisionAccuracy)
    }
}
