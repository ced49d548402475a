import Foundation
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

/// `headsup evaluate` as a library call: the manifest's test split, a run
/// over it, its text.
@Suite("Evaluation run")
struct EvaluationRunTests {
    let manifestPath = TestEnvironment.path("datasets/phone-motion-v1/manifest.json")

    @Test func theManifestGivesTheTestSessionsAndNamesThem() throws {
        let manifest = try DatasetManifest.load(manifestPath)
        let test = try manifest.paths(split: "test")
        #expect(test.count == 4)
        #expect(test == test.sorted())
        let name = EvaluationRun.sessionName(of: test[0])
        #expect(manifest.session(named: name)?.split == "test")
        #expect(throws: EvaluationError.self) { try manifest.paths(split: "validation") }
        #expect(throws: EvaluationError.self) { try DatasetManifest.load(TestEnvironment.path("README.md")) }
    }

    @Test func aRunReportsEverySessionWithItsTextAndProgress() throws {
        let files = Array(try DatasetManifest.load(manifestPath).paths(split: "test").prefix(2))
        let model = EvaluationRun.Model(
            scorer: MotionEnergyScorer(), windowing: .init(length: 50, hop: 25), distraction: .init(), threshold: 0.5, layout: "time-major",
            csv: .init())
        var progressCalls = 0
        let report = try EvaluationRun().report(
            name: "energy", parts: [.init(model: model, files: files)], date: Date(timeIntervalSince1970: 0),
            progress: { done, total, _ in
                progressCalls += 1
                #expect(done <= total * 1.5)
            })
        #expect(report.sessions.map(\.session) == files.map(EvaluationRun.sessionName))
        #expect(report.model == "energy" && report.threshold == 0.5)
        #expect(progressCalls > 0)
        #expect(report.text.contains("threshold 0.50"))
        #expect(EvaluationReport.comparisonTable([report, report]).split(separator: "\n").count == 4)
        #expect(throws: EvaluationError.self) { try EvaluationRun().report(name: "none", parts: []) }
    }

    /// Every model, the splices and each of the sweep's candidates replay a
    /// session read once; a model reading it another way reads it again.
    @Test func eachSessionIsReadOncePerRun() throws {
        let files = Array(try DatasetManifest.load(manifestPath).paths(split: "test").prefix(2))
        let model = EvaluationRun.Model(
            scorer: MotionEnergyScorer(), windowing: .init(length: 50, hop: 25), distraction: .init(), threshold: 0.5, layout: "time-major",
            csv: .init())
        let run = EvaluationRun(sweep: true)
        let first = try run.report(name: "a", parts: [.init(model: model, files: files)])
        let second = try run.report(name: "b", parts: [.init(model: model, files: files)])
        #expect(run.sessionFilesRead == files.count)
        #expect(first.sweep?.count == DecisionSweep.standardCandidates.count)
        #expect(first.details.map(\.windows) == second.details.map(\.windows))
        var android = model
        android.csv.sourceConvention = .android
        _ = try run.report(name: "c", parts: [.init(model: android, files: files)])
        #expect(run.sessionFilesRead == 2 * files.count)
    }
}
