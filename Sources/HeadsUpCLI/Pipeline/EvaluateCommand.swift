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
            return try BundledData.forThisProcess().locate(Self.bundledManifest)
        }
    }

    @OptionGroup var reading: SessionReadingOptions
    @OptionGroup var runtime: RuntimeOptions

    @Option(help: "Seconds at each session start and end, gap and label change whose windows are transitions, not steady state.")
    var settle = SessionEvaluator.defaultSettle

    @Flag(help: "Also try candidate decision values (hop, smoothing, minimum duration) and report false episodes against spliced latency.")
    var sweep = false

    @Option(
        name: .customLong("perturb"),
        help: ArgumentHelp(
            "Also read the sessions as other devices would give them and report each beside the clean figures, per position: "
                + "a comma-separated list of mag-offset=µT (or x:y:z), mag-gain=F, acc-bias=g, gyro-bias=rad/s, "
                + "rotate=pitch|roll|yaw:DEGREES, rate=HZ, or calibration (offsets ±600 µT, gains 0.5 and 2, biases ±0.05); repeatable.",
            valueName: "list"))
    var perturbLists: [String] = []

    /// Every `--perturb` item, in order.
    var perturbations: [SensorPerturbation] {
        get throws { try perturbLists.flatMap { list throws(SensorPerturbationError) in try SensorPerturbation.parseList(list) } }
    }

    func validate() throws {
        guard (0...3600).contains(settle) else { throw ValidationError("--settle takes 0 to 3600 seconds") }
        do { _ = try perturbations } catch { throw ValidationError("\(error)") }
    }

    @Option(help: "A folds index (weights/folds/folds.json): evaluate each cross-validation fold model on the sessions it never saw, pooled.")
    var folds: String?

    @Option(help: "With --folds: the held-out sessions of this split only (train, test or all).")
    var split: SessionSplit = .all

    enum SessionSplit: String, ExpressibleByArgument, CaseIterable { case train, test, all }

    @Flag(
        help: ArgumentHelp(
            "Also evaluate the carry-positions set's sessions (pockets, a bag, an armband, …; accelerometer only) and report per position.",
            discussion: "Its gyroscope and magnetometer columns are read as 0, as the runtime fills a channel a device does not have."))
    var carry = false

    @Option(help: "The carry-positions data set (with --carry, and for fold sessions not in the manifest).", completion: .directory)
    var carryDataset = CarryPosition.defaultDataset

    /// The carry set's session files; an error naming the folder when it is not there.
    private func carryFiles() throws -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: carryDataset, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CommandError(
                "\(carryDataset): no carry-positions data set here; give its folder with --carry-dataset DIR "
                    + "(it is not in the repository: see tools/training/README.md)")
        }
        return try SessionFileArguments.expand(carryDataset)
    }

    func run() throws {
        let named = try? DatasetManifest.load(try manifest)
        let evaluation = EvaluationRun(
            settle: settle, sweep: sweep, resampling: ResamplingConfiguration(maximumGap: reading.gapLimit),
            positions: named?.positions ?? [:], phones: named?.phones ?? [:], poses: named?.poses ?? [:])
        let progress = ProgressBar()
        defer { progress.finish() }
        let perturbations = try self.perturbations
        func evaluate(_ name: String, _ parts: [EvaluationRun.Part]) throws -> EvaluationReport {
            var report = try evaluation.report(name: name, parts: parts, progress: progress.show, note: { printError($0) })
            if !perturbations.isEmpty {
                report.robustness = try evaluation.robustness(parts: parts, perturbations: perturbations, clean: report) { name, index in
                    progress.show(Double(index), of: Double(perturbations.count), label: "perturb " + name)
                }
            }
            return report
        }
        var reports: [EvaluationReport] = []
        if let folds {
            reports.append(try evaluate("\(folds) (fold models, held-out \(split.rawValue) sessions)", try foldParts(folds)))
        } else {
            let files = try inputFiles() + (carry ? try carryFiles() : [])
            // Each model with its own card: threshold, layout and convention.
            let models: [String?] = runtime.models.isEmpty ? [nil] : runtime.models
            for model in models {
                let setup = try runtime.setUp(try runtime.loadSettings(model: model))
                reports.append(try evaluate(setup.model.info.file, [.init(model: evaluated(setup), files: files)]))
            }
        }
        progress.finish()
        for report in reports {
            if reports.count > 1 { print("\n\(report.model)") }
            print(report.text)
        }
        if reports.count > 1 { print("\n" + EvaluationReport.comparisonTable(reports)) }
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

    /// A model as the run set it up: its scorer and its card's values.
    private func evaluated(_ setup: RuntimeSetup) -> EvaluationRun.Model {
        let settings = setup.settings
        return EvaluationRun.Model(
            scorer: setup.scorer, windowing: settings.windowing, distraction: settings.distraction.configuration,
            threshold: settings.distraction.enterThreshold, layout: setup.layout.rawValue,
            csv: reading.csvOptions(for: settings.sensors.convention))
    }

    /// Each fold model with the sessions it never saw; the shipped model's
    /// card (threshold, decision values) applies to all of them.
    private func foldParts(_ indexPath: String) throws -> [EvaluationRun.Part] {
        guard let data = FileManager.default.contents(atPath: indexPath) else { throw CommandError("\(indexPath): cannot be read") }
        let index = try CrossValidationFolds.parse(data, source: indexPath)
        let folder = URL(fileURLWithPath: indexPath).deletingLastPathComponent()
        let card = ModelCard.siblingPath(of: folder.deletingLastPathComponent().appendingPathComponent(index.model).path)
        let manifest = try DatasetManifest.load(try self.manifest)
        return try index.folds.map { fold in
            var layers = try runtime.loadSettings(model: folder.appendingPathComponent(fold.file).path)
            try runtime.override(&layers, "model_card", .string(card))
            let files = try fold.heldOut.compactMap { name -> String? in
                // A carry session: all of it is training data (the set has no test split).
                let carrySession = "\(carryDataset)/sessions/\(name).csv"
                if manifest.session(named: name) == nil, FileManager.default.fileExists(atPath: carrySession) {
                    return split == .test ? nil : carrySession
                }
                guard let session = manifest.session(named: name) else {
                    throw CommandError("\(indexPath): fold \(fold.index): no session \(name) in \(manifest.path)")
                }
                return split == .all || session.split == split.rawValue ? session.path : nil
            }
            return EvaluationRun.Part(model: evaluated(try runtime.setUp(layers)), files: files)
        }
    }

    private func inputFiles() throws -> [String] {
        if !paths.isEmpty { return try paths.flatMap { try SessionFileArguments.expand($0) } }
        return try DatasetManifest.load(try manifest).paths(split: "test")
    }
}
