import Foundation

/// The per-position table and the trade-off curve for a terminal: what
/// `evaluate` prints after its pooled figures when sessions name positions.
extension PositionTable {
    public func text(threshold: Double) -> String {
        let f = EvaluationReport.format
        var table = TextTable(
            header: [
                "position", "sessions", "windows", "steady windows", "steady called distracted", "steady false ep.", "steady h",
                "false ep. / h", "median latency s",
            ],
            rightAligned: Set(1...8))
        for p in positions {
            let share = p.steadyShare.map { String(format: "%.1f %%", $0 * 100) } ?? "-"
            table.rows.append([
                p.position, "\(p.sessions)", "\(p.windows)", "\(p.steadyWindows)",
                p.distracted ? "\(share) found" : share, p.distracted ? "" : "\(p.steadyFalseEpisodes)", p.distracted ? "" : f(p.steadyHours, 2),
                p.distracted ? "" : f(p.steadyFalseEpisodesPerHour, 1), p.distracted ? f(p.medianLatency, 2) : "",
            ])
        }
        var curve = TextTable(header: ["threshold", "hands recall", "worst position", "its false rate"], rightAligned: [0, 1, 3])
        for point in tradeOff {
            curve.rows.append([
                f(point.threshold, 2), point.handsRecall.map { String(format: "%.1f %%", $0 * 100) } ?? "-", point.worstPosition ?? "-",
                point.worstFalseRate.map { String(format: "%.1f %%", $0 * 100) } ?? "-",
            ])
        }
        return "\n\nby carry position (steady windows; threshold \(f(threshold, 2))):\n" + table.renderedForTerminal()
            + "\n\ntrade-off (steady windows): hands recall against the worst carry position's false rate\n" + curve.renderedForTerminal()
    }
}
