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

    func run() throws {
        let setup = try runtime.setUp(try runtime.loadSettings())
        let settings = setup.settings
        let files = try inputFiles()
        let threshold = settings.distraction.enterThreshold
        let evaluator = SessionEvaluator(
            scorer: setup.scorer, windowing: settings.windowing, distraction: settings.distraction.configuration,
            threshold: threshold, resampling: ResamplingConfiguration(maximumGap: reading.gapLimit),
            csv: reading.csvOptions(for: settings.sensors.convention))
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
        let result = EvaluationReport(
            model: setup.model.info.file, threshold: threshold, hop: settings.windowing.hop, layout: setup.layout.rawValue,
            evaluations: evaluations, date: Date())
        print(Self.table(result))
        fflush(nil)
        if let json {
            try result.json().write(to: URL(fileURLWithPath: json))
            printError("wrote \(json)")
        }
        if let report {
            try HTMLReport.render(result).write(toFile: report, atomically: true, encoding: .utf8)
            printError("wrote \(report)")
        }
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

    static func table(_ report: EvaluationReport) -> String {
        func f(_ value: Double?, _ digits: Int = 3) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }
        var table = TextTable(
            header: ["session", "windows", "accuracy", "precision", "recall", "F1", "ROC AUC", "PR AUC", "decision acc", "latency s", "false/h"],
            rightAligned: Set(1...10))
        func add(_ name: String, _ windows: Int, _ m: BinaryMetrics, _ decision: Double, _ e: EvaluationReport.EventFigures) {
            table.rows.append([
                name, "\(windows)", f(m.accuracy), f(m.precision), f(m.recall), f(m.f1), f(m.rocAUC), f(m.prAUC), f(decision), f(e.medianLatency, 1),
                f(e.falseEpisodesPerHour, 1),
            ])
        }
        for s in report.sessions { add(s.session, s.windows, s.metrics, s.decisionAccuracy, s.events) }
        add("all", report.overall.count, report.overall, report.overallDecisionAccuracy, report.events)
        let m = report.overall
        return table.renderedForTerminal() + """

            threshold \(f(report.threshold, 2)); confusion (all windows): TP \(m.truePositives)  FP \(m.falsePositives)  TN \(m.trueNegatives)  FN \(m.falseNegatives)
            events: \(report.events.detected) of \(report.events.handsStretches) hands stretches detected (median latency \(f(report.events.medianLatency, 1)) s), \
            \(report.events.falseEpisodes) false episodes in \(f(report.events.pocketHours, 2)) h of pocket data
            """
    }
}
