/// `evaluate --perturb`: the same sessions read as other devices would give
/// them (``SensorPerturbation``), each beside the clean figures, pooled and
/// per position (the hands, each carry position; sessions without one are
/// "pocket" for label 0). A model that depends on one phone's calibration
/// loses accuracy here; the issue-41 bar is 0.005 under every calibration
/// perturbation.
public struct RobustnessTable: Sendable, Codable, Equatable {
    /// One reading of the sessions: clean or perturbed.
    public struct Row: Sendable, Codable, Equatable {
        /// "clean", or the perturbation as written (`mag-offset=600`).
        public var perturbation: String
        /// True for magnetometer offset or gain, accelerometer or gyroscope bias.
        public var calibration: Bool
        public var windows: Int
        public var accuracy: Double
        public var rocAUC: Double?
        public var steadyAccuracy: Double
        /// accuracy − the clean accuracy (0 for the clean row).
        public var accuracyChange: Double
        public var positions: [PositionShare]
    }

    /// A position's steady windows called distracted (for the hands, the
    /// recall; for the others, the false rate).
    public struct PositionShare: Sendable, Codable, Equatable {
        public var position: String
        public var steadyWindows: Int
        public var steadyShare: Double?
    }

    public var threshold: Double
    /// The clean reading first, then each perturbation in the order asked.
    public var rows: [Row]

    public init(
        threshold: Double, clean: [SessionEvaluation], perturbed: [(perturbation: String, calibration: Bool, evaluations: [SessionEvaluation])]
    ) {
        self.threshold = threshold
        let first = Self.row("clean", calibration: false, clean, threshold: threshold, cleanAccuracy: nil)
        rows =
            [first]
            + perturbed.map {
                Self.row($0.perturbation, calibration: $0.calibration, $0.evaluations, threshold: threshold, cleanAccuracy: first.accuracy)
            }
    }

    /// The largest accuracy loss under a calibration perturbation (0 when none lost any).
    public var worstCalibrationLoss: Double {
        let loss = rows.filter(\.calibration).map { -$0.accuracyChange }.max() ?? 0
        return loss > 0 ? loss : 0
    }

    static func row(_ name: String, calibration: Bool, _ evaluations: [SessionEvaluation], threshold: Double, cleanAccuracy: Double?) -> Row {
        let windows = evaluations.flatMap(\.windows)
        let metrics = BinaryMetrics(scores: windows.map(\.score), labels: windows.map { $0.label == 1 }, threshold: threshold)
        let steady = windows.filter(\.steady)
        let steadyMetrics = BinaryMetrics(scores: steady.map(\.score), labels: steady.map { $0.label == 1 }, threshold: threshold)
        var byPosition: [String: (count: Int, called: Int)] = [:]
        for session in evaluations {
            for window in session.windows where window.steady {
                let position = PositionTable.position(of: window, in: session)
                var entry = byPosition[position, default: (0, 0)]
                entry.count += 1
                if window.score >= threshold { entry.called += 1 }
                byPosition[position] = entry
            }
        }
        let names = byPosition.keys.sorted { ($0 == CarryPosition.hands ? 0 : 1, $0) < ($1 == CarryPosition.hands ? 0 : 1, $1) }
        return Row(
            perturbation: name, calibration: calibration, windows: windows.count, accuracy: metrics.accuracy, rocAUC: metrics.rocAUC,
            steadyAccuracy: steadyMetrics.accuracy, accuracyChange: cleanAccuracy.map { metrics.accuracy - $0 } ?? 0,
            positions: names.map { name in
                let e = byPosition[name]!
                return PositionShare(position: name, steadyWindows: e.count, steadyShare: e.count == 0 ? nil : Double(e.called) / Double(e.count))
            })
    }

    /// Two tables for a terminal: pooled figures per perturbation, then the
    /// steady share called distracted per position.
    public var text: String {
        let f = EvaluationReport.format
        var pooled = TextTable(header: ["perturbation", "windows", "accuracy", "change", "ROC AUC", "steady acc"], rightAligned: Set(1...5))
        for r in rows {
            pooled.rows.append([
                r.perturbation, "\(r.windows)", f(r.accuracy, 4), r.perturbation == "clean" ? "" : String(format: "%+.4f", r.accuracyChange),
                f(r.rocAUC, 4), f(r.steadyAccuracy, 4),
            ])
        }
        var names: [String] = []
        for r in rows { for p in r.positions where !names.contains(p.position) { names.append(p.position) } }
        var positions = TextTable(header: ["perturbation"] + names, rightAligned: Set(1...max(1, names.count)))
        for r in rows {
            positions.rows.append(
                [r.perturbation]
                    + names.map { name in
                        r.positions.first { $0.position == name }?.steadyShare.map { String(format: "%.1f %%", $0 * 100) } ?? "-"
                    })
        }
        return "\n\nperturbations (the sessions read as another device would give them), threshold \(f(threshold, 2)):\n"
            + pooled.renderedForTerminal()
            + "\n\nsteady windows called distracted, per position (hands: found; others: false):\n" + positions.renderedForTerminal()
            + "\nlargest accuracy loss under a calibration perturbation: \(f(worstCalibrationLoss, 4))"
    }
}
