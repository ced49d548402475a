import HeadsUpData

extension EvaluationRun {
    /// The parts' sessions read through each of `perturbations` in turn
    /// (sessions only: no splices, no sweep), beside `clean`'s own sessions.
    /// `progress` gets the perturbation being read and its index.
    public func robustness(
        parts: [Part], perturbations: [SensorPerturbation], clean: EvaluationReport,
        progress: (_ perturbation: String, _ index: Int) -> Void = { _, _ in }
    ) throws -> RobustnessTable {
        var perturbed: [(perturbation: String, calibration: Bool, evaluations: [SessionEvaluation])] = []
        for (index, perturbation) in perturbations.enumerated() {
            progress(perturbation.description, index)
            var evaluations: [SessionEvaluation] = []
            for part in parts {
                var model = part.model
                model.csv.perturbation = perturbation
                let evaluator = SessionEvaluator(
                    scorer: model.scorer, windowing: model.windowing, distraction: model.distraction, threshold: model.threshold,
                    resampling: resampling, csv: model.csv, settle: settle)
                for file in part.files {
                    var evaluation = try evaluator.evaluate(path: file, name: Self.sessionName(of: file), screen: try Self.screenTrack(beside: file))
                    evaluation.position = CarryPosition.resolve(path: file, manifest: positions)
                    evaluations.append(evaluation)
                }
            }
            perturbed.append((perturbation.description, perturbation.isCalibration, evaluations))
        }
        return RobustnessTable(threshold: clean.threshold, clean: clean.details, perturbed: perturbed)
    }
}
