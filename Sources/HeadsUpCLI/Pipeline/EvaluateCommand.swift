import ArgumentParser
import Foundation
import Glibc
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpModel
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

    @Option(
        name: .customLong("manifest"), help: "Dataset manifest whose test split is the default input (default: the bundled dataset's).",
        completion: .file())
    var manifestOption: String?

    static let bundledManifest = "datasets/phone-motion-v1/manifest.json"

    /// The manifest given, or the bundled one wherever it is installed.
    var manifest: String {
        get throws {
            if let manifestOption { return manifestOption }
            do { return try BundledData.forThisProcess().locate(Self.bundledManifest) } catch { throw CommandError(error.description) }
        }
    }

    @OptionGroup var reading: SessionReadingOptions
    @OptionGroup var runtime: RuntimeOptions

    @Option(help: "Seconds at each session start and end, gap and label change whose windows are transitions, not steady state.")
    var settle = SessionEvaluator.defaultSettle

    @Flag(help: "Also try candidate decision values (hop, smoothing, minimum duration) and report false episodes against spliced latency.")
    var sweep = false

    func validate() throws {
        guard (0...3600).contains(settle) else { throw ValidationError("--settle takes 0 to 3600 seconds") }
    }

    @Option(help: "A folds index (weights/folds/folds.json): evaluate each cross-validation fold model on the sessions it never saw, pooled.")
    var folds: String?

    @Option(help: "With --folds: the held-out sessions of this split only (train, test or all).")
    var split: SessionSplit = .all

    enum SessionSplit: String, ExpressibleByArgument, CaseIterable { case train, test, all }

    func run() throws {
        let evaluation = ModelEvaluation(settle: settle, sweep: sweep, reading: reading)
        var reports: [EvaluationReport] = []
        if let folds {
            reports.append(try evaluation.report(name: "\(folds) (fold models, held-out \(split.rawValue) sessions)", parts: try foldParts(folds)))
        } else {
            let files = try inputFiles()
            // Each model with its own card: threshold, layout and convention.
            let models: [String?] = runtime.models.isEmpty ? [nil] : runtime.models
            for model in models {
                let setup = try runtime.setUp(try runtime.loadSettings(model: model))
                reports.append(try evaluation.report(name: setup.model.info.file, parts: [.init(setup: setup, files: files)]))
            }
        }
        for report in reports {
            if reports.count > 1 { print("\n\(report.model)") }
            print(Self.table(report))
        }
        if reports.count > 1 { print("\n" + Self.comparisonTable(reports)) }
        fflush(nil)
        if let json {
            let data = reports.count == 1 ? try reports[0].json() : try ModelComparison(models: reports).json()
            try OutputFile.write(data, to: json)
            printError("wrote \(json)")
        }
        if let report {
            try OutputFile.write(Data(HTMLReport.render(reports).utf8), to: report)
            printError("wrote \(report)")
        }
    }

    /// Each fold model with the sessions it never saw; the shipped model's
    /// card (threshold, decision values) applies to all of them.
    private func foldParts(_ indexPath: String) throws -> [ModelEvaluation.Part] {
        guard let data = FileManager.default.contents(atPath: indexPath) else { throw CommandError("\(indexPath): cannot be read") }
        let index: CrossValidationFolds
        do { index = try CrossValidationFolds.parse(data, source: indexPath) } catch { throw CommandError(error.description) }
        let folder = URL(fileURLWithPath: indexPath).deletingLastPathComponent()
        let card = ModelCard.siblingPath(of: folder.deletingLastPathComponent().appendingPathComponent(index.model).path)
        let sessions = try manifestSessions()
        return try index.folds.map { fold in
            var layers = try runtime.loadSettings(model: folder.appendingPathComponent(fold.file).path)
            try runtime.override(&layers, "model_card", .string(card))
            let files = try fold.heldOut.compactMap { name -> String? in
                guard let session = sessions[name] else {
                    throw CommandError("\(indexPath): fold \(fold.index): no session \(name) in \(try manifest)")
                }
                return split == .all || session.split == split.rawValue ? session.path : nil
            }
            return ModelEvaluation.Part(setup: try runtime.setUp(layers), files: files)
        }
    }

    private func inputFiles() throws -> [String] {
        if !paths.isEmpty { return try paths.flatMap { try SessionFileArguments.expand($0) } }
        let test = try manifestSessions().values.filter { $0.split == "test" }.map(\.path).sorted()
        guard !test.isEmpty else { throw CommandError("\(try manifest): no sessions with split \"test\"") }
        return test
    }

    /// The manifest's sessions by name (file name without `.csv`), with their split and path.
    private func manifestSessions() throws -> [String: (split: String, path: String)] {
        let manifest = try self.manifest
        guard let data = FileManager.default.contents(atPath: manifest),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let sessions = object["sessions"] as? [[String: Any]]
        else {
            throw CommandError("\(manifest): cannot read the dataset manifest; name session files instead")
        }
        let folder = URL(fileURLWithPath: manifest).deletingLastPathComponent()
        var result: [String: (split: String, path: String)] = [:]
        for session in sessions {
            guard let file = session["file"] as? String, let split = session["split"] as? String else { continue }
            let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            result[name] = (split, folder.appendingPathComponent(file).path)
        }
        return result
    }

    static func format(_ value: Double?, _ digits: Int = 3) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }

    /// Per session and pooled: all windows beside the steady ones.
    static func table(_ report: EvaluationReport) -> String {
        let f = format
        var table = TextTable(
            header: [
                "session", "windows", "accuracy", "ROC AUC", "steady windows", "steady acc", "decision acc", "latency s", "false ep.",
                "steady false ep.", "walking",
            ],
            rightAligned: Set(1...10))
        for s in report.sessions {
            table.rows.append([
                s.session, "\(s.windows)", f(s.metrics.accuracy, 3), f(s.metrics.rocAUC, 3), "\(s.steadyWindows)",
                s.steadyWindows == 0 ? "-" : f(s.steadyMetrics.accuracy, 3), f(s.decisionAccuracy, 3), f(s.events.medianLatency, 1),
                "\(s.events.falseEpisodes)", "\(s.events.steadyFalseEpisodes)", String(format: "%.0f %%", s.walkingFraction * 100),
            ])
        }
        let e = report.events
        table.rows.append([
            "all", "\(report.overall.count)", f(report.overall.accuracy, 3), f(report.overall.rocAUC, 3), "\(report.steadyOverall.count)",
            f(report.steadyOverall.accuracy, 3), f(report.overallDecisionAccuracy, 3), f(e.medianLatency, 1), "\(e.falseEpisodes)",
            "\(e.steadyFalseEpisodes)", "",
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
