import Foundation

/// One self-contained HTML page with inline SVG plots: each session's score
/// over time against the true label, the ROC curve, the confusion matrix
/// and the detection-latency histogram. Figures carry `data-metric`
/// attributes naming their JSON path, so tests can check the page against
/// the JSON.
public enum HTMLReport {
    public static func render(_ report: EvaluationReport) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>HeadsUp evaluation</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
            h1{font-size:22px} h2{font-size:17px;margin-top:28px}
            table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}
            th{background:#f3f3f3} td:first-child,th:first-child{text-align:left}
            .plots{display:flex;gap:24px;flex-wrap:wrap} figure{margin:0} figcaption{font-size:12px;color:#555}
            .session{margin:10px 0} .small{font-size:12px;color:#555}
            </style></head><body>
            <h1>HeadsUp evaluation</h1>
            <p class="small">Model <code>\(escape(report.model))</code>, \(report.layout) input, threshold
            <span data-metric="threshold">\(f(report.threshold))</span>, hop \(report.hop) samples; \(escape(report.date)).
            Sessions replayed through the live pipeline: cleaning, 50 Hz resampling, windows, the model, smoothing and the decision rule.</p>
            <h2>Summary</h2>
            <table><tr><th></th><th>windows</th><th>accuracy</th><th>precision</th><th>recall</th><th>F1</th><th>ROC AUC</th><th>PR AUC</th><th>decision accuracy</th><th>median latency s</th><th>false episodes / h</th></tr>
            """
        html += row("all sessions", "overall", report.overall, report.overallDecisionAccuracy, report.events, windows: report.overall.count)
        for (index, session) in report.sessions.enumerated() {
            html += row(session.session, "sessions.\(index)", session.metrics, session.decisionAccuracy, session.events, windows: session.windows)
        }
        html += "</table>\n<div class=\"plots\">\n"
        html += figure(rocCurve(report), caption: "ROC curve (all windows)")
        html += figure(confusionMatrix(report.overall), caption: "Confusion matrix at the threshold")
        html += figure(latencyHistogram(report.events), caption: "Detection latency: hands stretch start → distracted state")
        html += "</div>\n<h2>Sessions: score over time</h2>\n"
        for session in report.details {
            html +=
                "<div class=\"session\"><div class=\"small\">\(escape(session.session))</div>\(timeline(session, threshold: report.threshold))</div>\n"
        }
        html +=
            "<p class=\"small\">Shaded: true label hands. Blue: window score; orange: smoothed score; dashed: threshold; red ticks: distracted state.</p>\n</body></html>\n"
        return html
    }

    static func f(_ value: Double?, _ digits: Int = 4) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.\(digits)f", value)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    static func row(_ name: String, _ path: String, _ m: BinaryMetrics, _ decision: Double, _ events: EvaluationReport.EventFigures, windows: Int)
        -> String
    {
        func cell(_ key: String, _ value: Double?, _ digits: Int = 4) -> String {
            "<td data-metric=\"\(path).\(key)\">\(f(value, digits))</td>"
        }
        return "<tr><td>\(escape(name))</td><td data-metric=\"\(path).windows\">\(windows)</td>" + cell("accuracy", m.accuracy)
            + cell("precision", m.precision)
            + cell("recall", m.recall) + cell("f1", m.f1) + cell("rocAUC", m.rocAUC) + cell("prAUC", m.prAUC)
            + cell("decisionAccuracy", decision) + cell("medianLatency", events.medianLatency, 2)
            + cell("falseEpisodesPerHour", events.falseEpisodesPerHour, 2) + "</tr>\n"
    }

    static func figure(_ svg: String, caption: String) -> String {
        "<figure>\(svg)<figcaption>\(escape(caption))</figcaption></figure>\n"
    }

    static func rocCurve(_ report: EvaluationReport) -> String {
        let windows = report.details.flatMap(\.windows)
        let points = BinaryMetrics.rocCurve(scores: windows.map(\.score), labels: windows.map { $0.label == 1 })
        let size = 260.0
        let pad = 30.0
        let path = points.map { String(format: "%.1f,%.1f", pad + $0.0 * size, pad + (1 - $0.1) * size) }.joined(separator: " ")
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(size + 2 * pad))" height="\(Int(size + 2 * pad))" role="img" aria-label="ROC curve">
            <rect x="\(pad)" y="\(pad)" width="\(size)" height="\(size)" fill="#fafafa" stroke="#999"/>
            <line x1="\(pad)" y1="\(pad + size)" x2="\(pad + size)" y2="\(pad)" stroke="#bbb" stroke-dasharray="4 3"/>
            <polyline points="\(path)" fill="none" stroke="#1f77b4" stroke-width="2"/>
            <text x="\(pad + size / 2)" y="\(pad + size + 22)" font-size="11" text-anchor="middle">false positive rate</text>
            <text x="10" y="\(pad + size / 2)" font-size="11" text-anchor="middle" transform="rotate(-90 10 \(pad + size / 2))">true positive rate</text>
            <text x="\(pad + size - 6)" y="\(pad + size - 8)" font-size="12" text-anchor="end">AUC <tspan data-metric="overall.rocAUC">\(f(report.overall.rocAUC))</tspan></text>
            </svg>
            """
    }

    static func confusionMatrix(_ m: BinaryMetrics) -> String {
        let cells = [
            ("TN", m.trueNegatives, "trueNegatives", 0, 0), ("FP", m.falsePositives, "falsePositives", 1, 0),
            ("FN", m.falseNegatives, "falseNegatives", 0, 1), ("TP", m.truePositives, "truePositives", 1, 1),
        ]
        let total = max(1, m.count)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"300\" role=\"img\" aria-label=\"confusion matrix\">"
        svg += "<text x=\"180\" y=\"20\" font-size=\"11\" text-anchor=\"middle\">predicted</text>"
        svg +=
            "<text x=\"120\" y=\"40\" font-size=\"11\" text-anchor=\"middle\">pocket</text><text x=\"240\" y=\"40\" font-size=\"11\" text-anchor=\"middle\">hands</text>"
        svg +=
            "<text x=\"30\" y=\"110\" font-size=\"11\" text-anchor=\"middle\">pocket</text><text x=\"30\" y=\"230\" font-size=\"11\" text-anchor=\"middle\">hands</text>"
        svg += "<text x=\"12\" y=\"170\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 170)\">true label</text>"
        for (name, count, key, column, rowIndex) in cells {
            let x = 60 + column * 120
            let y = 50 + rowIndex * 120
            let shade = Int(255 - 180 * Double(count) / Double(total))
            let color = name.hasPrefix("T") ? "rgb(\(shade),\(min(255, shade + 40)),\(shade))" : "rgb(255,\(shade),\(shade))"
            svg += "<rect x=\"\(x)\" y=\"\(y)\" width=\"118\" height=\"118\" fill=\"\(color)\" stroke=\"#888\"/>"
            svg += "<text x=\"\(x + 59)\" y=\"\(y + 55)\" font-size=\"20\" text-anchor=\"middle\" data-metric=\"overall.\(key)\">\(count)</text>"
            svg += "<text x=\"\(x + 59)\" y=\"\(y + 80)\" font-size=\"11\" text-anchor=\"middle\">\(name)</text>"
        }
        return svg + "</svg>"
    }

    static func latencyHistogram(_ events: EvaluationReport.EventFigures) -> String {
        let bins = 12
        let maximum = max(2.0, (events.latencies.max() ?? 1).rounded(.up))
        let width = maximum / Double(bins)
        var counts = [Int](repeating: 0, count: bins)
        for latency in events.latencies { counts[min(bins - 1, Int(latency / width))] += 1 }
        let top = max(1, counts.max() ?? 1)
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"340\" height=\"300\" role=\"img\" aria-label=\"latency histogram\">"
        svg += "<rect x=\"30\" y=\"20\" width=\"290\" height=\"230\" fill=\"#fafafa\" stroke=\"#999\"/>"
        for (index, count) in counts.enumerated() {
            let height = 220 * Double(count) / Double(top)
            svg += String(
                format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#2ca02c\"/>", 32 + Double(index) * 24, 250 - height, 22.0,
                height)
        }
        svg += "<text x=\"175\" y=\"272\" font-size=\"11\" text-anchor=\"middle\">seconds (0 – \(f(maximum, 1)))</text>"
        svg +=
            "<text x=\"175\" y=\"290\" font-size=\"11\" text-anchor=\"middle\">detected <tspan data-metric=\"events.detected\">\(events.detected)</tspan>, missed <tspan data-metric=\"events.missed\">\(events.missed)</tspan></text>"
        return svg + "</svg>"
    }

    static func timeline(_ session: SessionEvaluation, threshold: Double) -> String {
        let width = 1000.0
        let height = 120.0
        let pad = 4.0
        guard let last = session.windows.last?.time, last > 0 else { return "<p class=\"small\">no windows</p>" }
        func x(_ t: Double) -> Double { pad + t / last * (width - 2 * pad) }
        func y(_ v: Double) -> Double { pad + (1 - v) * (height - 2 * pad) }
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"scores of \(escape(session.session))\">"
        svg += "<rect x=\"0\" y=\"0\" width=\"\(Int(width))\" height=\"\(Int(height))\" fill=\"#fff\" stroke=\"#ccc\"/>"
        for stretch in session.stretches where stretch.label == 1 {
            svg += String(
                format: "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.0f\" fill=\"#ffe9b3\"/>", x(stretch.start),
                max(1, x(stretch.end) - x(stretch.start)), height)
        }
        svg += String(
            format: "<line x1=\"0\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"#999\" stroke-dasharray=\"5 4\"/>", y(threshold), width, y(threshold)
        )
        func polyline(_ values: [(Double, Double)], _ color: String) -> String {
            // Break the line across gaps longer than 2 s.
            var parts: [[String]] = [[]]
            var previous: Double?
            for (t, v) in values {
                if let previous, t - previous > 2 { parts.append([]) }
                parts[parts.count - 1].append(String(format: "%.1f,%.1f", x(t), y(v)))
                previous = t
            }
            return parts.filter { !$0.isEmpty }.map {
                "<polyline points=\"\($0.joined(separator: " "))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1\"/>"
            }.joined()
        }
        svg += polyline(session.windows.map { ($0.time, $0.score) }, "#1f77b4")
        svg += polyline(session.windows.map { ($0.time, $0.smoothed) }, "#ff7f0e")
        for window in session.windows where window.distracted {
            svg += String(
                format: "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#d62728\"/>", x(window.time), height - 6, x(window.time),
                height)
        }
        svg += "<text x=\"6\" y=\"14\" font-size=\"10\" fill=\"#666\">0 s</text>"
        svg += String(format: "<text x=\"%.0f\" y=\"14\" font-size=\"10\" fill=\"#666\" text-anchor=\"end\">%.0f s</text>", width - 6, last)
        return svg + "</svg>"
    }
}
