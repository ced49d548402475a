import Foundation

/// Every figure of an evaluation: per session and pooled window metrics,
/// decision accuracy, detection latency and false episodes. What `--json`
/// writes and what the HTML report shows.
public struct EvaluationReport: Sendable, Codable {
    public struct EventFigures: Sendable, Codable, Equatable {
        public var handsStretches: Int
        public var detected: Int
        public var missed: Int
        public var latencies: [Double]
        public var medianLatency: Double?
        public var meanLatency: Double?
        public var maximumLatency: Double?
        public var falseEpisodes: Int
        public var pocketHours: Double
        public var falseEpisodesPerHour: Double?
        /// The same in steady pocket data (the settle margins left out).
        public var steadyFalseEpisodes: Int
        public var steadyPocketHours: Double
        public var steadyFalseEpisodesPerHour: Double?
    }

    public struct SessionSummary: Sendable, Codable {
        public var session: String
        public var windows: Int
        public var metrics: BinaryMetrics
        public var accuracy: Double
        public var steadyWindows: Int
        public var steadyMetrics: BinaryMetrics
        public var decisionAccuracy: Double
        /// The share of windows scored while the user walked (the walking gate's view).
        public var walkingFraction: Double
        public var events: EventFigures
    }

    public var model: String
    public var threshold: Double
    public var hop: Int
    public var layout: String
    public var date: String
    /// Seconds at each session start and end, gap and label change left out of the steady figures.
    public var settle: Double
    public var overall: BinaryMetrics
    /// Window metrics over steady windows only.
    public var steadyOverall: BinaryMetrics
    public var overallAccuracy: Double
    public var overallDecisionAccuracy: Double
    public var events: EventFigures
    public var sessions: [SessionSummary]
    /// Pocket → hands transitions spliced from the sessions' steady data.
    public var splices: SpliceFigures?
    /// Candidate decision values, when asked for (`--sweep`), and the one chosen.
    public var sweep: [DecisionSweep.Result]?
    public var sweepChoice: DecisionSweep.Candidate?
    /// Per carry position, when any session names one (CarryPosition).
    public var positions: PositionTable?
    /// Per phone and per pose, when any session names one (SessionTraits).
    public var phones: GroupTable?
    public var poses: GroupTable?
    /// `evaluate --perturb`: each perturbation beside the clean figures.
    public var robustness: RobustnessTable?
    /// Full detail for the plots.
    public var details: [SessionEvaluation]

    /// `date` is when the report was made (the caller's clock).
    public init(model: String, threshold: Double, hop: Int, layout: String, settle: Double, evaluations: [SessionEvaluation], date: Date) {
        self.settle = settle
        self.model = model
        self.threshold = threshold
        self.hop = hop
        self.layout = layout
        self.date = ISO8601DateFormatter().string(from: date)
        let windows = evaluations.flatMap(\.windows)
        overall = BinaryMetrics(scores: windows.map(\.score), labels: windows.map { $0.label == 1 }, threshold: threshold)
        let steady = windows.filter(\.steady)
        steadyOverall = BinaryMetrics(scores: steady.map(\.score), labels: steady.map { $0.label == 1 }, threshold: threshold)
        overallAccuracy = overall.accuracy
        overallDecisionAccuracy = windows.isEmpty ? 0 : Double(windows.filter { ($0.label == 1) == $0.distracted }.count) / Double(windows.count)
        events = Self.events(evaluations.flatMap(\.stretches))
        sessions = evaluations.map {
            SessionSummary(
                session: $0.session, windows: $0.windows.count, metrics: $0.metrics, accuracy: $0.metrics.accuracy,
                steadyWindows: $0.windows.filter(\.steady).count, steadyMetrics: $0.steadyMetrics, decisionAccuracy: $0.decisionAccuracy,
                walkingFraction: $0.walkingFraction,
                events: Self.events($0.stretches))
        }
        positions = PositionTable(evaluations, threshold: threshold)
        phones = GroupTable(evaluations, threshold: threshold, by: "phone", key: \.phone)
        poses = GroupTable(evaluations, threshold: threshold, by: "pose", key: \.pose)
        details = evaluations
    }

    static func events(_ stretches: [SessionEvaluation.Stretch]) -> EventFigures {
        let hands = stretches.filter { $0.label == 1 }
        let latencies = hands.compactMap(\.detectionLatency).sorted()
        let pocketHours = stretches.filter { $0.label == 0 }.map { $0.end - $0.start }.reduce(0, +) / 3600
        let falseEpisodes = stretches.map(\.falseEpisodes).reduce(0, +)
        let steadyPocketHours = stretches.filter { $0.label == 0 }.map(\.steadySeconds).reduce(0, +) / 3600
        let steadyFalseEpisodes = stretches.map(\.steadyFalseEpisodes).reduce(0, +)
        return EventFigures(
            handsStretches: hands.count, detected: latencies.count, missed: hands.count - latencies.count, latencies: latencies,
            medianLatency: latencies.isEmpty ? nil : latencies[latencies.count / 2],
            meanLatency: latencies.isEmpty ? nil : latencies.reduce(0, +) / Double(latencies.count), maximumLatency: latencies.last,
            falseEpisodes: falseEpisodes, pocketHours: pocketHours,
            falseEpisodesPerHour: pocketHours > 0 ? Double(falseEpisodes) / pocketHours : nil, steadyFalseEpisodes: steadyFalseEpisodes,
            steadyPocketHours: steadyPocketHours,
            steadyFalseEpisodesPerHour: steadyPocketHours > 0 ? Double(steadyFalseEpisodes) / steadyPocketHours : nil)
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
