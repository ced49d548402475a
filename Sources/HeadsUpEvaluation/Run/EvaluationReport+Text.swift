import Foundation

/// `headsup evaluate`'s text: the same figures as the JSON and the HTML
/// report (HTMLReport.swift), as tables for a terminal.
extension EvaluationReport {
    static func format(_ value: Double?, _ digits: Int = 3) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "-" }

    /// Per session and pooled: all windows beside the steady ones, the
    /// events, the spliced transitions and the sweep: what `evaluate` prints.
    public var text: String {
        let report = self
        let f = Self.format
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
            """ + Self.spliceLine(report) + Self.sweepTable(report) + (report.positions?.text(threshold: report.threshold) ?? "")
            + (report.phones?.text(threshold: report.threshold) ?? "") + (report.poses?.text(threshold: report.threshold) ?? "")
            + (report.robustness?.text ?? "")
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
    public static func comparisonTable(_ reports: [EvaluationReport]) -> String {
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
