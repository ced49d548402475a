import Foundation

/// The HTML report's carry-position section: each model's per-position
/// table, the trade-off curve (hands recall against the worst position's
/// false rate) and one plot of score traces per position. Empty when no
/// session names a position, so such reports stay as they were.
extension HTMLReport {
    static func positionsSection(_ reports: [EvaluationReport], path: (Int) -> String) -> String {
        guard reports.contains(where: { $0.positions != nil }) else { return "" }
        var html = "<h2>By carry position</h2>\n<p class=\"small\">Steady windows only. For a carry position, the share called distracted "
        html += "(score at or above the threshold) and the false episodes per steady hour; for the hands, the share found and the median "
        html += "latency from a stretch start.</p>\n"
        for (index, report) in reports.enumerated() {
            guard let table = report.positions else { continue }
            let p = "\(path(index))positions.positions"
            html += "<h3>\(escape(report.model))</h3>\n<table><tr><th>position</th><th>sessions</th><th>windows</th><th>steady windows</th>"
            html += "<th>steady called distracted</th><th>steady false episodes</th><th>steady h</th><th>false episodes / h</th>"
            html += "<th>median latency s</th></tr>\n"
            for (row, figures) in table.positions.enumerated() {
                html += "<tr><td>\(escape(figures.position))</td>" + cell("\(p).\(row).sessions", figures.sessions)
                html += cell("\(p).\(row).windows", figures.windows) + cell("\(p).\(row).steadyWindows", figures.steadyWindows)
                html += cell("\(p).\(row).steadyShare", figures.steadyShare) + cell("\(p).\(row).steadyFalseEpisodes", figures.steadyFalseEpisodes)
                html += cell("\(p).\(row).steadyHours", figures.steadyHours, 3)
                html += cell("\(p).\(row).steadyFalseEpisodesPerHour", figures.steadyFalseEpisodesPerHour, 2)
                html += cell("\(p).\(row).medianLatency", figures.medianLatency, 2) + "</tr>\n"
            }
            html += "</table>\n"
        }
        html += "<div class=\"plots\">\n"
        html += figure(
            tradeOffPlot(reports), caption: "Trade-off over thresholds 0.05 – 0.95: hands recall against the worst carry position's false rate")
        html += "</div>\n"
        guard let first = reports.first, let table = first.positions else { return html }
        html += "<h3>Score traces per position: \(escape(first.model))</h3>\n"
        for figures in table.positions {
            html += "<div class=\"session\"><div class=\"small\">\(escape(figures.position))</div>"
            html += positionTraces(first, position: figures.position) + "</div>\n"
        }
        return html
    }

    /// One line per model through its (worst false rate, hands recall) points.
    static func tradeOffPlot(_ reports: [EvaluationReport]) -> String {
        let (size, pad) = (260.0, 34.0)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(size + 2 * pad))\" height=\"\(Int(size + 2 * pad))\" role=\"img\" "
        svg +=
            "aria-label=\"trade-off curve\"><rect x=\"\(pad)\" y=\"\(pad)\" width=\"\(size)\" height=\"\(size)\" fill=\"#fafafa\" stroke=\"#999\"/>"
        svg += "<text x=\"\(pad + size / 2)\" y=\"\(pad + size + 24)\" font-size=\"11\" text-anchor=\"middle\">worst position's false rate</text>"
        svg += "<text x=\"10\" y=\"\(pad + size / 2)\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 10 \(pad + size / 2))\">"
        svg += "hands recall</text>"
        for (index, report) in reports.enumerated() {
            let points = (report.positions?.tradeOff ?? []).compactMap { point -> String? in
                guard let recall = point.handsRecall, let rate = point.worstFalseRate else { return nil }
                return String(format: "%.1f,%.1f", pad + rate * size, pad + (1 - recall) * size)
            }
            guard !points.isEmpty else { continue }
            svg += "<polyline data-tradeoff=\"\(index)\" points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"\(color(index))\" "
            svg += "stroke-width=\"2\" marker-mid=\"none\"/>"
        }
        return svg + "</svg>"
    }

    /// The windows of one position in every session that has them: score
    /// over seconds from the session start, one thin line per session, the
    /// threshold dashed.
    static func positionTraces(_ report: EvaluationReport, position: String) -> String {
        let (width, height, pad) = (1000.0, 120.0, 4.0)
        let traces = report.details.map { session in
            session.windows.filter { PositionTable.position(of: $0, in: session) == position }.map { ($0.time, $0.score) }
        }.filter { !$0.isEmpty }
        let last = traces.compactMap { $0.last?.0 }.max() ?? 0
        guard last > 0 else { return "<p class=\"small\">no windows</p>" }
        func x(_ t: Double) -> Double { pad + min(max(t, 0), last) / last * (width - 2 * pad) }
        func y(_ v: Double) -> Double { pad + (1 - v) * (height - 2 * pad) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" "
        svg += "aria-label=\"scores in position \(escape(position))\" data-position=\"\(escape(position))\">"
        svg += "<rect x=\"0\" y=\"0\" width=\"\(Int(width))\" height=\"\(Int(height))\" fill=\"#fff\" stroke=\"#ccc\"/>"
        svg += String(
            format: "<line x1=\"0\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#d62728\" stroke-opacity=\"0.6\" stroke-dasharray=\"5 4\"/>",
            y(report.threshold), width, y(report.threshold))
        for (index, trace) in traces.enumerated() {
            // Break the line across gaps longer than 2 s (a label change in a mixed session).
            var parts: [[String]] = [[]]
            var previous: Double?
            for (t, v) in trace {
                if let previous, t - previous > 2 { parts.append([]) }
                parts[parts.count - 1].append(String(format: "%.1f,%.1f", x(t), y(v)))
                previous = t
            }
            for part in parts where !part.isEmpty {
                svg += "<polyline class=\"trace\" points=\"\(part.joined(separator: " "))\" fill=\"none\" stroke=\"\(color(index))\" "
                svg += "stroke-opacity=\"0.7\" stroke-width=\"1\"/>"
            }
        }
        svg += "<text x=\"6\" y=\"14\" font-size=\"10\" fill=\"#666\">0 s</text>"
        svg += String(format: "<text x=\"%.0f\" y=\"14\" font-size=\"10\" fill=\"#666\" text-anchor=\"end\">%.0f s</text>", width - 6, last)
        return svg + "</svg>"
    }
}
