import Foundation
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpPipeline
import HeadsUpRuntime

/// What `headsup evaluate` does for one report: sessions through the live
/// pipeline, pocket → hands splices of their steady data, and, when asked,
/// the decision sweep. A report can pool several parts, each a model with
/// the sessions it is judged on (the folds of a cross-validation); splices
/// join sessions of the same part only, so each runs through a model that
/// never saw either side.
struct ModelEvaluation {
    struct Part {
        var setup: RuntimeSetup
        var files: [String]
    }

    let settle: Double
    let sweep: Bool
    let reading: SessionReadingOptions

    func report(name: String, parts: [Part]) throws -> EvaluationReport {
        guard let first = parts.first else { throw CommandError("no model to evaluate") }
        let progress = ProgressBar(total: parts.flatMap(\.files).map(Self.rowEstimate).reduce(0, +))
        defer { progress.finish() }
        var done = 0.0
        var evaluations: [SessionEvaluation] = []
        var splices: [SpliceFigures] = []
        var sweeps: [[DecisionSweep.Result]] = []
        for part in parts {
            let evaluator = sessionEvaluator(part.setup)
            for file in part.files {
                let evaluation: SessionEvaluation
                do {
                    evaluation = try evaluator.evaluate(path: file, name: sessionName(of: file)) {
                        progress.show(done + $0, label: sessionName(of: file))
                    }
                } catch {
                    throw CommandError("\(error)")
                }
                let notes = SessionStream.LeftOut(
                    path: file, skippedRows: evaluation.skippedRows ?? 0, droppedSamples: evaluation.droppedSamples ?? 0
                ).notes
                if !notes.isEmpty { printError("\(file): " + notes.joined(separator: "; ")) }
                evaluations.append(evaluation)
                done += Self.rowEstimate(file)
            }
            let partSplices = try self.splices(part, evaluator: evaluator)
            splices.append(SpliceFigures(partSplices.map { evaluator.evaluate(samples: $0.samples, name: $0.name) }))
            if sweep { sweeps.append(try self.sweep(part, splices: partSplices)) }
        }
        guard evaluations.contains(where: { !$0.windows.isEmpty }) else {
            throw CommandError(
                "no windows to evaluate in \(parts.flatMap(\.files).joined(separator: ", ")): each session must hold at least a window's "
                    + "length of samples (1 s) that reading kept")
        }
        let settings = first.setup.settings
        var report = EvaluationReport(
            model: name, threshold: settings.distraction.enterThreshold, hop: settings.windowing.hop, layout: first.setup.layout.rawValue,
            settle: settle, evaluations: evaluations, date: Date())
        let merged = SpliceFigures.merged(splices)
        if merged.splices > 0 { report.splices = merged }
        if sweep {
            let results = DecisionSweep.merged(sweeps)
            report.sweep = results
            report.sweepChoice = DecisionSweep.best(results)?.candidate
        }
        return report
    }

    private func sessionEvaluator(_ setup: RuntimeSetup, scorer: (any WindowScorer)? = nil, candidate: DecisionSweep.Candidate? = nil)
        -> SessionEvaluator
    {
        let settings = setup.settings
        var windowing = settings.windowing
        var distraction = settings.distraction.configuration
        if let candidate {
            windowing.hop = candidate.hop
            distraction.timeConstant = candidate.timeConstant
            distraction.minimumDuration = candidate.minimumDuration
        }
        return SessionEvaluator(
            scorer: scorer ?? setup.scorer, windowing: windowing, distraction: distraction, threshold: settings.distraction.enterThreshold,
            resampling: ResamplingConfiguration(maximumGap: reading.gapLimit), csv: reading.csvOptions(for: settings.sensors.convention),
            settle: settle)
    }

    /// Pocket → hands in a running stream, from the part's steady data.
    private func splices(_ part: Part, evaluator: SessionEvaluator) throws -> [SplicedTransitions.Splice] {
        var segments: [SplicedTransitions.Segment] = []
        for file in part.files {
            do {
                segments += try SplicedTransitions.segments(
                    of: sessionName(of: file), path: file, csv: evaluator.csv, resampling: evaluator.resampling, settle: settle)
            } catch {
                throw CommandError("\(error)")
            }
        }
        return SplicedTransitions.splices(segments)
    }

    private func sweep(_ part: Part, splices: [SplicedTransitions.Splice]) throws -> [DecisionSweep.Result] {
        let memo = MemoizingScorer(part.setup.scorer)
        let named = part.files.map { (path: $0, name: sessionName(of: $0)) }
        return try DecisionSweep.run(DecisionSweep.standardCandidates, files: named, splices: splices) { candidate in
            sessionEvaluator(part.setup, scorer: memo, candidate: candidate)
        }
    }

    /// File size / 110 bytes per row: enough for a progress bar.
    static func rowEstimate(_ path: String) -> Double {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.doubleValue ?? 0
        return max(1, size / 110)
    }
}
