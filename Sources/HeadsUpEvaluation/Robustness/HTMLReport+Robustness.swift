import Foundation

/// The HTML report's `--perturb` section: per model, each perturbation's
/// pooled figures and per-position shares beside the clean reading, and a
/// bar plot of the accuracy change (the 0.005 bar dashed). Empty without
/// `--perturb`.
extension HTMLReport {
    static func robustnessSection(_ reports: [EvaluationReport], path: (Int) -> String) -> String {
        guard reports.contains(where: { $0.robustness != nil }) else { return "" }
        var html = "<h2>Perturbations</h2>\n<p class=\"small\">The same sessions read as other devices would give them: a magnetometer "
        html += "offset (µT) or gain, an accelerometer (g) or gyroscope (rad/s) bias, the phone turned, another sampling rate. "
        html += "Position columns: steady windows called distracted (hands: found; others: false).</p>\n"
        for (index, report) in reports.enumerated() {
            guard let table = report.robustness else { continue }
            let p = "\(path(index))robustness.rows"
            var names: [String] = []
            for r in table.rows { for s in r.positions where !names.contains(s.position) { names.append(s.position) } }
            html += "<h3>\(escape(report.model))</h3>\n<table><tr><th>perturbation</th><th>windows</th><th>accuracy</th><th>change</th>"
            html += "<th>ROC AUC</th><th>steady accuracy</th>" + names.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
            for (row, r) in table.rows.enumerated() {
                html += "<tr><td>\(escape(r.perturbation))</td>" + cell("\(p).\(row).windows", r.windows) + cell("\(p).\(row).accuracy", r.accuracy)
                html += cell("\(p).\(row).accuracyChange", r.accuracyChange) + cell("\(p).\(row).rocAUC", r.rocAUC)
                html += cell("\(p).\(row).steadyAccuracy", r.steadyAccuracy)
                for name in names {
                    if let k = r.positions.firstIndex(where: { $0.position == name }) {
                        html += cell("\(p).\(row).positions.\(k).steadyShare", r.positions[k].steadyShare)
                    } else {
                        html += "<td>–</td>"
                    }
                }
                html += "</tr>\n"
            }
            html += "</table>\n<div class=\"plots\">\n"
            html += figure(changePlot(table), caption: "Accuracy change against the clean reading: \(report.model)")
            html += "</div>\n"
        }
        return html
    }

    /// One horizontal bar per perturbation, from 0 to its accuracy change
    /// (scale: the largest change or 0.02), the −0.005 bar dashed.
    static func changePlot(_ table: RobustnessTable) -> String {
        let rows = table.rows.filter { $0.perturbation != "clean" }
        let (labelWidth, barWidth, rowHeight, pad) = (150.0, 300.0, 18.0, 6.0)
        let scale = max(0.02, rows.map { abs($0.accuracyChange) }.max() ?? 0)
        let height = Double(rows.count) * rowHeight + 2 * pad + 14
        let zero = labelWidth + barWidth / 2
        func x(_ change: Double) -> Double { zero + change / scale * barWidth / 2 }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(labelWidth + barWidth + pad))\" height=\"\(Int(height))\" "
        svg += "role=\"img\" aria-label=\"accuracy change per perturbation\">"
        for (i, r) in rows.enumerated() {
            let y = pad + Double(i) * rowHeight
            let (from, to) = (min(zero, x(r.accuracyChange)), max(zero, x(r.accuracyChange)))
            let fill = r.accuracyChange < -0.005 ? "#d62728" : "#1f77b4"
            svg += "<text x=\"\(labelWidth - 6)\" y=\"\(y + 12)\" font-size=\"11\" text-anchor=\"end\">\(escape(r.perturbation))</text>"
            svg += String(
                format: "<rect data-perturbation=\"%@\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%@\"/>",
                escape(r.perturbation), from, y + 3, max(1, to - from), rowHeight - 6, fill)
        }
        let bottom = pad + Double(rows.count) * rowHeight
        svg += "<line x1=\"\(zero)\" y1=\"\(pad)\" x2=\"\(zero)\" y2=\"\(bottom)\" stroke=\"#333\"/>"
        svg += String(
            format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>", x(-0.005), pad, x(-0.005),
            bottom)
        svg += String(
            format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" text-anchor=\"middle\">%+.3f … %+.3f</text>", zero, bottom + 12, -scale, scale)
        return svg + "</svg>"
    }
}
