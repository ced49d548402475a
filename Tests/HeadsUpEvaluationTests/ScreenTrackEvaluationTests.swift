import Foundation
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

/// `evaluate` with a screen track beside a session: decisions count as
/// distracted only while the phone is in use, as warnings under
/// `only_while_screen_on`; the scores stay the model's.
@Suite("Evaluation with a screen track")
struct ScreenTrackEvaluationTests {
    let model = EvaluationRun.Model(
        scorer: MotionEnergyScorer(), windowing: .init(length: 50, hop: 25), distraction: .init(), threshold: 0.5, layout: "time-major",
        csv: .init())

    /// A 60 s bag walk whose phone moves like one in the hands from 25 to 35 s.
    func bagWalk(in directory: TemporaryDirectory) throws -> String {
        try directory.write("bag.csv", ReportTests.session(pocket: 60, hands: 0) { $0 >= 25 && $0 < 35 })
    }

    func evaluation(_ file: String) throws -> SessionEvaluation {
        try #require(try EvaluationRun().report(name: "energy", parts: [.init(model: model, files: [file])]).details.first)
    }

    @Test func aDarkScreenTakesTheFalseEpisodeAwayButNotTheScores() throws {
        let directory = try TemporaryDirectory()
        let file = try bagWalk(in: directory)
        let ungated = try evaluation(file)
        #expect(ungated.stretches.map(\.falseEpisodes).reduce(0, +) == 1)
        #expect(!ungated.windows.filter(\.distracted).isEmpty)

        _ = try directory.write("bag.screen.csv", "time,state\n0,off\n")
        let gated = try evaluation(file)
        #expect(gated.stretches.map(\.falseEpisodes).reduce(0, +) == 0)
        #expect(gated.windows.filter(\.distracted).isEmpty)
        #expect(gated.decisionAccuracy == 1)
        #expect(gated.windows.map(\.score) == ungated.windows.map(\.score))
    }

    @Test func theScreenComingOnMidEpisodeStartsItThere() throws {
        let directory = try TemporaryDirectory()
        let file = try bagWalk(in: directory)
        let ungated = try evaluation(file)
        _ = try directory.write("bag.screen.csv", "0,locked\n30,on\n")
        let gated = try evaluation(file)
        #expect(gated.stretches.map(\.falseEpisodes).reduce(0, +) == 1)
        // Distracted windows before 30 s are held back, those after kept.
        for (before, after) in zip(ungated.windows, gated.windows) {
            #expect(after.distracted == (before.distracted && after.time >= 30), "window at \(after.time)")
        }
    }

    @Test func aBadTrackNamesItsLine() throws {
        let directory = try TemporaryDirectory()
        let file = try bagWalk(in: directory)
        _ = try directory.write("bag.screen.csv", "0,on\n12,dim\n")
        #expect(throws: ScreenTrackError.self) { try evaluation(file) }
        do { _ = try evaluation(file) } catch {
            #expect("\(error)".hasSuffix("bag.screen.csv:2: state 'dim' is not one of on, off, locked, idle, unknown"), "\(error)")
        }
    }

    @Test func theTrackBesideASessionIsNamedAfterIt() {
        #expect(ScreenTrack.path(besideSession: "/d/walk.csv") == "/d/walk.screen.csv")
        #expect(ScreenTrack(changes: [.init(time: 5, state: .off), .init(time: 1, state: .on)]).state(at: 3) == .on)
        #expect(ScreenTrack(changes: [.init(time: 5, state: .off)]).state(at: 3) == .unknown)
    }
}
