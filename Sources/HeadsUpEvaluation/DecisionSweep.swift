import Foundation
import HeadsUpData
import HeadsUpPipeline

/// Candidate decision values (hop, smoothing, minimum duration) tried on the
/// same sessions and splices: steady-state false episodes against spliced
/// detection latency. Run it on validation data (the cross-validation folds'
/// held-out sessions), write the chosen values on the model card, and judge
/// them on the test sessions.
public struct DecisionSweep {
    public struct Candidate: Sendable, Codable, Equatable {
        public var hop: Int
        public var timeConstant: Double
        public var minimumDuration: Double

        public init(hop: Int, timeConstant: Double, minimumDuration: Double) {
            self.hop = hop
            self.timeConstant = timeConstant
            self.minimumDuration = minimumDuration
        }
    }

    public struct Result: Sendable, Codable, Equatable {
        public var candidate: Candidate
        /// False episodes that begin in steady pocket data of the sessions and in the splices' pocket parts.
        public var steadyFalseEpisodes: Int
        public var steadyPocketHours: Double
        public var splices: SpliceFigures
    }

    /// One candidate's results over several parts (the folds of a
    /// cross-validation, each with its own model), added up.
    public static func merged(_ parts: [[Result]]) -> [Result] {
        guard let first = parts.first else { return [] }
        return first.indices.map { index in
            let results = parts.map { $0[index] }
            return Result(
                candidate: results[0].candidate, steadyFalseEpisodes: results.map(\.steadyFalseEpisodes).reduce(0, +),
                steadyPocketHours: results.map(\.steadyPocketHours).reduce(0, +), splices: SpliceFigures.merged(results.map(\.splices)))
        }
    }

    /// The grid `headsup evaluate --sweep` tries: hops of 0.1, 0.2 and
    /// 0.5 s, three smoothing constants and three minimum durations.
    public static let standardCandidates: [Candidate] = [5, 10, 25].flatMap { hop in
        [0.25, 0.5, 1.0].flatMap { timeConstant in
            [0.0, 0.25, 0.5].map { Candidate(hop: hop, timeConstant: timeConstant, minimumDuration: $0) }
        }
    }

    /// The candidate with no false episode and the lowest median spliced
    /// latency (ties: the larger hop, which costs less CPU; then the
    /// longer smoothing and minimum duration, which resist noise better).
    public static func best(_ results: [Result]) -> Result? {
        results.filter { $0.steadyFalseEpisodes == 0 && $0.splices.falseEpisodes == 0 && $0.splices.missed == 0 && $0.splices.medianLatency != nil }
            .min { a, b in
                let (la, lb) = (a.splices.medianLatency!, b.splices.medianLatency!)
                if abs(la - lb) > 1e-9 { return la < lb }
                if a.candidate.hop != b.candidate.hop { return a.candidate.hop > b.candidate.hop }
                if a.candidate.timeConstant != b.candidate.timeConstant { return a.candidate.timeConstant > b.candidate.timeConstant }
                return a.candidate.minimumDuration > b.candidate.minimumDuration
            }
    }

    /// Evaluates every candidate. `evaluator(candidate)` gives the session
    /// evaluator with those values; every candidate replays the same
    /// sessions, read once.
    public static func run(
        _ candidates: [Candidate], sessions recorded: [RecordedSession], splices: [SplicedTransitions.Splice],
        evaluator: (Candidate) -> SessionEvaluator
    ) -> [Result] {
        candidates.map { candidate in
            let sessionEvaluator = evaluator(candidate)
            let sessions = recorded.map { sessionEvaluator.evaluate($0) }
            let spliced = splices.map { sessionEvaluator.evaluate(samples: $0.samples, name: $0.name) }
            let stretches = sessions.flatMap(\.stretches).filter { $0.label == 0 }
            return Result(
                candidate: candidate, steadyFalseEpisodes: stretches.map(\.steadyFalseEpisodes).reduce(0, +),
                steadyPocketHours: stretches.map(\.steadySeconds).reduce(0, +) / 3600, splices: SpliceFigures(spliced))
        }
    }
}

/// Remembers each window's score, so candidates that share a hop score
/// every window once. Not thread-safe: one sweep at a time.
public final class MemoizingScorer: WindowScorer, @unchecked Sendable {
    private let inner: any WindowScorer
    private var scores: [[Float]: Double] = [:]

    public init(_ inner: any WindowScorer) { self.inner = inner }

    public func score(_ window: MotionWindow) -> Double {
        if let known = scores[window.channelMajorValues] { return known }
        let score = inner.score(window)
        scores[window.channelMajorValues] = score
        return score
    }
}
