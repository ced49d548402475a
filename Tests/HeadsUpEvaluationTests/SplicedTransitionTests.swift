import Foundation
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

@Suite("Spliced transitions and the decision sweep")
struct SplicedTransitionTests {
    /// A still pocket session and a spinning hands session, 60 s each at 100 Hz.
    func sessions(_ directory: TemporaryDirectory) throws -> [(path: String, name: String)] {
        let pocket = try directory.write("pocket.csv", ReportTests.session(pocket: 60, hands: 0) { _ in false })
        let hands = try directory.write("hands.csv", ReportTests.session(pocket: 0, hands: 60) { _ in true })
        return [(pocket, "pocket"), (hands, "hands")]
    }

    @Test func steadySegmentsLeaveOutTheMarginsAndSplicesJoinPocketToHands() throws {
        let directory = try TemporaryDirectory()
        let files = try sessions(directory)
        let segments = try files.flatMap { try SplicedTransitions.segments(of: $0.name, path: $0.path, settle: 5) }
        #expect(segments.map(\.label) == [.pocket, .hands])
        for segment in segments { #expect(abs(segment.samples.count - 50 * 50) <= 2, "\(segment.samples.count)") }
        let splices = SplicedTransitions.splices(segments, pocketSeconds: 30, handsSeconds: 10)
        #expect(splices.count == 1)
        let splice = try #require(splices.first)
        #expect(splice.joint == 30)
        #expect(splice.samples.count == 40 * 50)
        #expect(splice.samples[1499].label == .pocket && splice.samples[1500].label == .hands)
        #expect(zip(splice.samples, splice.samples.dropFirst()).allSatisfy { abs($1.time - $0.time - 0.02) < 1e-9 })

        let evaluator = SessionEvaluator(scorer: MotionEnergyScorer(), windowing: .init(), distraction: .init(), threshold: 0.5)
        let figures = SpliceFigures(splices.map { evaluator.evaluate(samples: $0.samples, name: $0.name) })
        #expect(figures.splices == 1 && figures.missed == 0 && figures.falseEpisodes == 0)
        // The window fills with spinning samples within a fraction of a second; smoothing (1 s) and the 0.5 s minimum add the rest.
        let latency = try #require(figures.medianLatency)
        #expect(latency > 0.5 && latency < 2.5, "\(latency)")
    }

    @Test func theSweepPrefersTheFastestCandidateWithoutFalseEpisodes() throws {
        let directory = try TemporaryDirectory()
        let files = try sessions(directory)
        let segments = try files.flatMap { try SplicedTransitions.segments(of: $0.name, path: $0.path, settle: 5) }
        let splices = SplicedTransitions.splices(segments)
        let candidates = [
            DecisionSweep.Candidate(hop: 25, timeConstant: 1, minimumDuration: 0.5),
            DecisionSweep.Candidate(hop: 5, timeConstant: 0.25, minimumDuration: 0),
        ]
        let memo = MemoizingScorer(MotionEnergyScorer())
        let recorded = try files.map { try RecordedSession(path: $0.path, name: $0.name) }
        let results = DecisionSweep.run(candidates, sessions: recorded, splices: splices) { candidate in
            SessionEvaluator(
                scorer: memo, windowing: .init(length: 50, hop: candidate.hop),
                distraction: .init(timeConstant: candidate.timeConstant, minimumDuration: candidate.minimumDuration), threshold: 0.5)
        }
        #expect(results.count == 2)
        #expect(results.allSatisfy { $0.steadyFalseEpisodes == 0 && $0.splices.missed == 0 })
        let slow = try #require(results[0].splices.medianLatency)
        let fast = try #require(results[1].splices.medianLatency)
        #expect(fast < slow)
        #expect(DecisionSweep.best(results)?.candidate == candidates[1])
    }
}
