import Foundation
import HeadsUpData
import HeadsUpPipeline

/// What `headsup evaluate` does for one report: sessions through the live
/// pipeline, pocket → hands splices of their steady data, and, when asked,
/// the decision sweep. A report can pool several parts, each a model with
/// the sessions it is judged on (the folds of a cross-validation); splices
/// join sessions of the same part only, so each runs through a model that
/// never saw either side.
public struct EvaluationRun {
    /// A model as the live pipeline runs it, with its card's values.
    public struct Model {
        public var scorer: any WindowScorer
        public var windowing: WindowingConfiguration
        public var distraction: DistractionConfiguration
        /// The card's threshold on raw scores, for the window metrics.
        public var threshold: Double
        /// The model's input layout (for the report).
        public var layout: String
        /// How its sessions are read (the model's axis convention included).
        public var csv: SessionCSVOptions

        public init(
            scorer: any WindowScorer, windowing: WindowingConfiguration, distraction: DistractionConfiguration, threshold: Double,
            layout: String, csv: SessionCSVOptions
        ) {
            (self.scorer, self.windowing, self.distraction, self.threshold, self.layout, self.csv) =
                (scorer, windowing, distraction, threshold, layout, csv)
        }
    }

    /// A model and the session files it is judged on.
    public struct Part {
        public var model: Model
        public var files: [String]

        public init(model: Model, files: [String]) { (self.model, self.files) = (model, files) }
    }

    public var settle: Double
    public var sweep: Bool
    public var resampling: ResamplingConfiguration
    /// Carry positions a manifest names, by session path; sidecars and file
    /// names are read as well (CarryPosition.resolve).
    public var positions: [String: String]
    /// Phones and poses a manifest names, by session path; sidecars and
    /// carry-positions file names are read as well (SessionTraits.resolve).
    public var phones: [String: String]
    public var poses: [String: String]
    /// The sessions read so far, each once, for every model, splice and sweep candidate of this run.
    private let recordings = RecordingCache()
    /// How many session files this run has read (each once, however many models, splices and candidates replay it).
    package var sessionFilesRead: Int { recordings.reads }

    public init(
        settle: Double = SessionEvaluator.defaultSettle, sweep: Bool = false, resampling: ResamplingConfiguration = .init(),
        positions: [String: String] = [:], phones: [String: String] = [:], poses: [String: String] = [:]
    ) {
        (self.settle, self.sweep, self.resampling, self.positions) = (settle, sweep, resampling, positions)
        (self.phones, self.poses) = (phones, poses)
    }

    /// The report named `name` over `parts`. `progress` gets the rows read
    /// so far, their estimated total and the session being read; `note`
    /// gets what reading a session left out.
    public func report(
        name: String, parts: [Part], date: Date = Date(), progress: (_ done: Double, _ total: Double, _ session: String) -> Void = { _, _, _ in },
        note: (String) -> Void = { _ in }
    ) throws -> EvaluationReport {
        guard let first = parts.first else { throw EvaluationError("no model to evaluate") }
        let total = parts.flatMap(\.files).map(Self.rowEstimate).reduce(0, +)
        var done = 0.0
        var evaluations: [SessionEvaluation] = []
        var splices: [SpliceFigures] = []
        var sweeps: [[DecisionSweep.Result]] = []
        for part in parts {
            let evaluator = sessionEvaluator(part.model)
            var sessions: [RecordedSession] = []
            for file in part.files {
                let name = Self.sessionName(of: file)
                let session = try recordings.session(at: file, name: name, csv: part.model.csv, resampling: resampling) {
                    progress(done + $0, total, name)
                }
                let screen = try Self.screenTrack(beside: file)
                if !screen.changes.isEmpty { note("\(file): decisions gated by the screen track \(ScreenTrack.path(besideSession: file))") }
                var evaluation = evaluator.evaluate(session, screen: screen)
                evaluation.position = CarryPosition.resolve(path: file, manifest: positions)
                let traits = SessionTraits.resolve(path: file, phones: phones, poses: poses)
                (evaluation.phone, evaluation.pose) = (traits.phone, traits.pose)
                let leftOut = SessionStream.LeftOut(
                    path: file, skippedRows: evaluation.skippedRows ?? 0, droppedSamples: evaluation.droppedSamples ?? 0)
                if !leftOut.notes.isEmpty { note("\(file): " + leftOut.notes.joined(separator: "; ")) }
                evaluations.append(evaluation)
                sessions.append(session)
                done += Self.rowEstimate(file)
            }
            let partSplices = SplicedTransitions.splices(
                sessions.flatMap { SplicedTransitions.segments(of: $0, settle: settle, rate: resampling.rate) })
            splices.append(SpliceFigures(partSplices.map { evaluator.evaluate(samples: $0.samples, name: $0.name) }))
            if sweep { sweeps.append(self.sweep(part, sessions: sessions, splices: partSplices)) }
        }
        guard evaluations.contains(where: { !$0.windows.isEmpty }) else {
            throw EvaluationError(
                "no windows to evaluate in \(parts.flatMap(\.files).joined(separator: ", ")): each session must hold at least a window's "
                    + "length of samples (1 s) that reading kept")
        }
        let model = first.model
        var report = EvaluationReport(
            model: name, threshold: model.threshold, hop: model.windowing.hop, layout: model.layout, settle: settle, evaluations: evaluations,
            date: date)
        let merged = SpliceFigures.merged(splices)
        if merged.splices > 0 { report.splices = merged }
        if sweep {
            let results = DecisionSweep.merged(sweeps)
            report.sweep = results
            report.sweepChoice = DecisionSweep.best(results)?.candidate
        }
        return report
    }

    /// The screen track beside a session (`walk.screen.csv`), or an empty one.
    static func screenTrack(beside session: String) throws -> ScreenTrack {
        let path = ScreenTrack.path(besideSession: session)
        guard let data = FileManager.default.contents(atPath: path) else { return ScreenTrack() }
        return try ScreenTrack.parse(String(decoding: data, as: UTF8.self), path: path)
    }

    private func sessionEvaluator(_ model: Model, scorer: (any WindowScorer)? = nil, candidate: DecisionSweep.Candidate? = nil)
        -> SessionEvaluator
    {
        var windowing = model.windowing
        var distraction = model.distraction
        if let candidate {
            windowing.hop = candidate.hop
            distraction.timeConstant = candidate.timeConstant
            distraction.minimumDuration = candidate.minimumDuration
        }
        return SessionEvaluator(
            scorer: scorer ?? model.scorer, windowing: windowing, distraction: distraction, threshold: model.threshold, resampling: resampling,
            csv: model.csv, settle: settle)
    }

    private func sweep(_ part: Part, sessions: [RecordedSession], splices: [SplicedTransitions.Splice]) -> [DecisionSweep.Result] {
        let memo = MemoizingScorer(part.model.scorer)
        return DecisionSweep.run(DecisionSweep.standardCandidates, sessions: sessions, splices: splices) { candidate in
            sessionEvaluator(part.model, scorer: memo, candidate: candidate)
        }
    }

    /// A session's name in reports: the file name without folder and `.csv` or `.txt`.
    public static func sessionName(of path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        for suffix in [".csv", ".txt"] where file.hasSuffix(suffix) { return String(file.dropLast(suffix.count)) }
        return file
    }

    /// File size / 110 bytes per row: enough for a progress bar.
    static func rowEstimate(_ path: String) -> Double {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.doubleValue ?? 0
        return max(1, size / 110)
    }
}

/// The sessions one evaluation has read, by file and reading options: a file
/// read for one model is replayed from memory for the next model that reads
/// it the same way (and for the splices and the sweep).
final class RecordingCache {
    private struct Key: Hashable {
        var path: String
        var csv: SessionCSVOptions
        var resampling: ResamplingConfiguration
    }
    private var sessions: [Key: RecordedSession] = [:]
    /// Session files read so far.
    private(set) var reads = 0

    func session(
        at path: String, name: String, csv: SessionCSVOptions, resampling: ResamplingConfiguration, progress: (Double) -> Void
    ) throws(SessionCSVError) -> RecordedSession {
        let key = Key(path: path, csv: csv, resampling: resampling)
        if let known = sessions[key] { return known }
        let session = try RecordedSession(path: path, name: name, csv: csv, resampling: resampling, progress: progress)
        sessions[key] = session
        reads += 1
        return session
    }
}
