import ArgumentParser
import Foundation
import Glibc
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpPipeline
import HeadsUpRuntime

/// `headsup evaluate`: how good the model is, measured the way it runs live.
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Replay labelled sessions through the live pipeline and report window and event metrics.",
        discussion: """
            Default: the configured model (weights/model.h5) on the bundled test sessions (the \
            test split of datasets/phone-motion-v1/manifest.json). Window metrics use the raw \
            scores and the model card's threshold; decision accuracy, detection latency and \
            false episodes use the smoothed state, as live warnings do.
            """)

    @Argument(help: "Session files or directories (default: the bundled test sessions).", completion: .file())
    var paths: [String] = []

    @Option(help: "Write every figure as JSON to this file.", completion: .file())
    var json: String?

    @Option(help: "Write a self-contained HTML report with plots to this file.", completion: .file())
    var report: String?

    @Option(help: "Dataset manifest whose test split is the default input.", completion: .file())
    var manifest = "datasets/phone-motion-v1/manifest.json"

    @OptionGroup var reading: SessionReadingOptions
    @OptionGroup var runtime: RuntimeOptions

    @Option(help: "Seconds at each session start and end, gap and label change whose windows are transitions, not steady state.")
    var settle = SessionEvaluator.defaultSettle

    @Flag(help: "Also try candidate decision values (hop, smoothing, minimum duration) and report false episodes against spliced latency.")
    var sweep = false

    func validate() throws {
        guard settle >= 0, settle.isFinite else { throw ValidationError("--settle takes seconds ≥ 0") }
    }

    func run() throws {
        let files = try inputFiles()
        // Each model with its own card: threshold, layout and convention.
        var reports: [EvaluationReport] = []
        let models: [String?] = runtime.models.isEmpty ? [nil] : runtime.models
        for model in models { reports.append(try evaluate(files, setup: try runtime.setUp(try runtime.loadSettings(model: model)))) }
        for report in reports {
            if reports.count > 1 { print("\n\(report.model)") }
            print(Self.table(report))
        }
        if reports.count > 1 { print("\n" + Self.comparisonTable(reports)) }
        fflush(nil)
        if let json {
            let data = reports.count == 1 ? try reports[0].json() : try ModelComparison(models: reports).json()
            try data.write(to: URL(fileURLWithPath: json))
            printError("wrote \(json)")
        }
        if let report {
            try HTMLReport.render(reports).write(toFile: report, atomically: true, encoding: .utf8)
            printError("wrote \(report)")
        }
    }

    private func evaluate(_ files: [String], setup: RuntimeSetup) throws -> EvaluationReport {
        let settings = setup.settings
        let threshold = settings.distraction.enterThreshold
        let evaluator = SessionEvaluator(
            scorer: setup.scorer, windowing: settings.windowing, distraction: settings.distraction.configuration,
            threshold: threshold, resampling: ResamplingConfiguration(maximumGap: reading.gapLimit),
            csv: reading.csvOptions(for: settings.sensors.convention), settle: settle)
        let progress = ProgressBar(total: files.map { Self.rowEstimate($0) }.reduce(0, +))
        var evaluations: [SessionEvaluation] = []
        var done = 0.0
        for file in files {
            let rows = Self.rowEstimate(file)
            do {
                evaluations.append(
                    try evaluator.evaluate(path: file, name: sessionName(of: file)) { progress.show(done + $0, label: sessionName(of: file)) })
            } catch {
                progress.finish()
                throw CommandError("\(error)")
            }
            done += rows
        }
        progress.finish()
        var report = EvaluationReport(
            model: setup.model.info.file, threshold: threshold, hop: settings.windowing.hop, layout: setup.layout.rawValue, settle: settle,
            evaluations: evaluations, date: Date())
        // Pocket → hands in a running stream: steady data of the same sessions, spliced.
        let csvOptions = reading.csvOptions(for: settings.sensors.convention)
        var segments: [SplicedTransitions.Segment] = []
        for file in files {
            do {
                segments += try SplicedTransitions.segments(
                    of: sessionName(of: file), path: file, csv: csvOptions, resampling: evaluator.resampling, settle: settle)
            } catch {
                throw CommandError("\(error)")
            }
        }
        let splices = SplicedTransitions.splices(segments)
        if !splices.isEmpty { report.splices = SpliceFigures(splices.map { evaluator.evaluate(samples: $0.samples, name: $0.name) }) }
        if sweep {
            let memo = MemoizingScorer(setup.scorer)
            let named = files.map { (path: $0, name: sessionName(of: $0)) }
            let results = try DecisionSweep.run(DecisionSweep.standardCandidates, files: named, splices: splices) { candidate in
                var distraction = settings.distraction.configuration
                distraction.timeConstant = candidate.timeConstant
                distraction.minimumDuration = candidate.minimumDuration
                return SessionEvaluator(
                    scorer: memo, windowing: WindowingConfiguration(length: settings.windowing.length, hop: candidate.hop), distraction: distraction,
                    threshold: threshold, resampling: evaluator.resampling, csv: csvOptions, settle: settle)
            }
            report.sweep = results
            report.sweepChoice = DecisionSweep.best(results)?.candidate
        }
        return report
    }

    private func inputFiles() throws -> [String] {
        if !paths.isEmpty { return try paths.flatMap { try SessionFileArguments.expand($0) } }
        guard let data = FileManager.default.contents(atPath: manifest),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let sessions = object["sessions"] as? [[String: Any]]
        else {
            throw CommandError("\(manifest): cannot read the dataset manifest; name session files instead")
        }
        let folder = URL(fileURLWithPath: manifest).deletingLastPathComponent()
        let test = sessions.filter { $0["split"] as? String == "test" }.compactMap { $0["file"] as? String }
        guard !test.isEmpty else { throw CommandError("\(manifest): no sessions with split \"test\"") }
        return test.map { folder.appendingPathComponent($0).path }
    }

    /// File size / 110 bytes per row: enough for a progress bar.
    static func rowEstimate(_ path: String) -> Double {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.doubleValue ?? 0
        return max(1, size / 110)
    }

    static func format(_ value: Double?, _ digits: Int = 3) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }

    /// Per session and pooled: all windows beside the steady ones.
    static func table(_ report: EvaluationReport) -> String {
        let f = format
        var table = TextTable(
            header: [
                "session", "windows", "accuracy", "ROC AUC", "steady windows", "steady acc", "decision acc", "latency s", "false ep.",
                "steady false ep.",
            ],
            rightAligned: Set(1...9))
        for s in report.sessions {
            table.rows.append([
                s.session, "\(s.windows)", f(s.metrics.accuracy, 3), f(s.metrics.rocAUC, 3), "\(s.steadyWindows)",
                s.steadyWindows == 0 ? "-" : f(s.steadyMetrics.accuracy, 3), f(s.decisionAccuracy, 3), f(s.events.medianLatency, 1),
                "\(s.events.falseEpisodes)", "\(s.events.steadyFalseEpisodes)",
            ])
        }
        let e = report.events
        table.rows.append([
            "all", "\(report.overall.count)", f(report.overall.accuracy, 3), f(report.overall.rocAUC, 3), "\(report.steadyOverall.count)",
            f(report.steadyOverall.accuracy, 3), f(report.overallDecisionAccuracy, 3), f(e.medianLatency, 1), "\(e.falseEpisodes)",
            "\(e.steadyFalseEpisodes)",
        ])
        let m = report.overall
        return table.renderedForTerminal() + """

            threshold \(f(report.threshold, 2)); all windows: TP \(m.truePositives)  FP \(m.falsePositives)  TN \(m.trueNegatives)  FN \(m.falseNegatives); \
            steady windows (settle \(f(report.settle, 1)) s): \(report.steadyOverall.errors) errors in \(report.steadyOverall.count)
            events: \(e.detected) of \(e.handsStretches) hands stretches detected (median latency \(f(e.medianLatency, 1)) s); \
            false distracted episodes: \(e.falseEpisodes) in \(f(e.pocketHours, 2)) h of pocket data, \
            \(e.steadyFalseEpisodes) in its \(f(e.steadyPocketHours, 2)) steady h (\(f(e.steadyFalseEpisodesPerHour, 1)) / h)
            """ + spliceLine(report) + sweepTable(report)
    }

    static func spliceLine(_ report: EvaluationReport) -> String {
        guard let s = report.splices else { return "\nspliced transitions: none (no steady pocket and hands data to join)" }
        return
            "\nspliced pocket → hands transitions: \(s.splices), median latency \(format(s.medianLatency, 2)) s (max \(format(s.maximumLatency, 2)) s), "
            + "\(s.missed) missed, \(s.falseEpisodes) false episodes before the joint"
    }

    static func sweepTable(_ report: EvaluationReport) -> String {
        guard let results = report.sweep else { return "" }
        var table = TextTable(
            header: [
                "hop", "time constant s", "minimum s", "steady false ep.", "spliced median s", "spliced max s", "missed", "splice false ep.", "",
            ],
            rightAligned: Set(0...7))
        for r in results {
            let chosen = r.candidate == report.sweepChoice ? "← chosen" : ""
            table.rows.append([
                "\(r.candidate.hop)", format(r.candidate.timeConstant, 2), format(r.candidate.minimumDuration, 2), "\(r.steadyFalseEpisodes)",
                format(r.splices.medianLatency, 2), format(r.splices.maximumLatency, 2), "\(r.splices.missed)", "\(r.splices.falseEpisodes)", chosen,
            ])
        }
        return "\n\ndecision values (hop in samples), on these sessions:\n" + table.renderedForTerminal()
    }

    /// One row per model, the same sessions.
    static func comparisonTable(_ reports: [EvaluationReport]) -> String {
        let f = format
        var table = TextTable(
            header: [
                "model", "threshold", "accuracy", "ROC AUC", "steady acc", "steady errors", "latency s", "false ep.", "steady false ep.",
                "steady pocket h",
            ],
            rightAligned: Set(1...9))
        for r in reports {
            table.rows.append([
                r.model, f(r.threshold, 2), f(r.overall.accuracy, 3), f(r.overall.rocAUC, 3), f(r.steadyOverall.accuracy, 3),
                "\(r.steadyOverall.errors)",
                f(r.events.medianLatency, 1), "\(r.events.falseEpisodes)", "\(r.events.steadyFalseEpisodes)", f(r.events.steadyPocketHours, 2),
            ])
        }
        return table.renderedForTerminal()
    }
}
