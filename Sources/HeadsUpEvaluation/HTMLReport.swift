import Foundation

/// One self-contained HTML page with inline SVG plots, for one model or
/// several compared on the same sessions: the summary (all windows beside
/// the steady state), each model's sessions, ROC curves overlaid, the
/// confusion matrix and latency histogram of the first model, and each
/// session's scores over time, one line per model, with the settle margins
/// shaded. Figures carry `data-metric` attributes naming their JSON path
/// (`overall.accuracy` for one model, `models.1.overall.accuracy` for
/// several), so tests can check the page against the JSON.
public enum HTMLReport {
    /// Line colours, one per model.
    static let colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b"]

    public static func render(_ report: EvaluationReport) -> String { render([report]) }

    public static func render(_ reports: [EvaluationReport]) -> String {
        precondition(!reports.isEmpty, "a report needs at least one model")
        let single = reports.count == 1
        func path(_ index: Int) -> String { single ? "" : "models.\(index)." }
        let first = reports[0]
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>HeadsUp evaluation</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
            h1{font-size:22px} h2{font-size:17px;margin-top:28px} h3{font-size:15px}
            table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}
            th{background:#f3f3f3} td:first-child,th:first-child{text-align:left} th.group{text-align:center}
            .plots{display:flex;gap:24px;flex-wrap:wrap} figure{margin:0} figcaption{font-size:12px;color:#555}
            .session{margin:10px 0} .small{font-size:12px;color:#555} .key{display:inline-block;width:14px;height:3px;vertical-align:middle;margin:0 4px}
            </style></head><body>
            <h1>HeadsUp evaluation</h1>
            <p class="small">\(escape(first.date)). Sessions replayed through the live pipeline: cleaning, 50 Hz resampling, windows,
            the model, smoothing and the decision rule. <b>Steady</b> figures leave out the first and last
            <span data-metric="\(path(0))settle">\(f(first.settle, 1))</span> s of each session, gap and label change, where the phone goes
            into or out of the pocket; <b>all</b> figures count every window.</p>
            <h2>Models</h2>
            <table><tr><th rowspan="2">model</th><th rowspan="2">input, threshold, hop</th><th class="group" colspan="4">all windows</th><th class="group" colspan="4">steady windows</th><th class="group" colspan="4">events</th></tr>
            <tr><th>windows</th><th>accuracy</th><th>ROC AUC</th><th>errors</th><th>windows</th><th>accuracy</th><th>ROC AUC</th><th>errors</th><th>median latency s, from a session start</th><th>median latency s, spliced pocket → hands</th><th>false episodes (all)</th><th>steady false episodes / pocket h</th></tr>

            """
        for (index, report) in reports.enumerated() {
            let p = path(index)
            let events = report.events
            html += "<tr><td><span class=\"key\" style=\"background:\(color(index))\"></span>\(escape(report.model))</td>"
            html += "<td>\(escape(report.layout)), <span data-metric=\"\(p)threshold\">\(f(report.threshold, 2))</span>, \(report.hop)</td>"
            html += cell("\(p)overall.count", report.overall.count) + cell("\(p)overall.accuracy", report.overall.accuracy)
            html += cell("\(p)overall.rocAUC", report.overall.rocAUC) + cell("\(p)overall.errors", report.overall.errors)
            html += cell("\(p)steadyOverall.count", report.steadyOverall.count) + cell("\(p)steadyOverall.accuracy", report.steadyOverall.accuracy)
            html += cell("\(p)steadyOverall.rocAUC", report.steadyOverall.rocAUC) + cell("\(p)steadyOverall.errors", report.steadyOverall.errors)
            html += cell("\(p)events.medianLatency", events.medianLatency, 2)
            html += report.splices.map { cell("\(p)splices.medianLatency", $0.medianLatency, 2) } ?? "<td>–</td>"
            html += cell("\(p)events.falseEpisodes", events.falseEpisodes)
            html += "<td><span data-metric=\"\(p)events.steadyFalseEpisodes\">\(events.steadyFalseEpisodes)</span> in "
            html += "<span data-metric=\"\(p)events.steadyPocketHours\">\(f(events.steadyPocketHours, 3))</span> h</td></tr>\n"
        }
        html += "</table>\n"
        for (index, report) in reports.enumerated() {
            html += sessionTable(report, path: path(index), title: single ? "Sessions" : "Sessions: \(report.model)")
        }
        html += positionsSection(reports, path: path)
        html += robustnessSection(reports, path: path)
        html += "<h2>Plots</h2><div class=\"plots\">\n"
        html += figure(rocCurves(reports, path: path), caption: "ROC curves (all windows)")
        html += figure(confusionMatrix(first.overall, path: path(0)), caption: "Confusion matrix at the threshold: \(first.model)")
        html += figure(latencyHistogram(first.events, path: path(0)), caption: "Detection latency, hands stretch start → distracted: \(first.model)")
        for (index, report) in reports.enumerated() where report.sweep != nil {
            html += figure(sweepPlot(report, path: path(index)), caption: "Decision values tried: \(report.model)")
        }
        html += "</div>\n<h2>Sessions: score over time</h2>\n"
        for (sessionIndex, session) in first.details.enumerated() {
            let lines = reports.map { $0.details[sessionIndex] }
            html += "<div class=\"session\"><div class=\"small\">\(escape(session.session))</div>"
            html += timeline(lines, thresholds: reports.map(\.threshold), settle: first.settle) + "</div>\n"
        }
        html += "<p class=\"small\">Shaded yellow: true label hands; grey: the settle margins (not steady). "
        html += reports.enumerated().map { "<span class=\"key\" style=\"background:\(color($0.offset))\"></span>\(escape($0.element.model))" }
            .joined(separator: " ")
        html += ": window scores; dashed: each model's threshold; ticks below: the first model's distracted state.</p>\n</body></html>\n"
        return html
    }

    static func color(_ index: Int) -> String { colors[index % colors.count] }

    static func f(_ value: Double?, _ digits: Int = 4) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.\(digits)f", value)
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    static func cell(_ path: String, _ value: Double?, _ digits: Int = 4) -> String { "<td data-metric=\"\(path)\">\(f(value, digits))</td>" }
    static func cell(_ path: String, _ value: Int) -> String { "<td data-metric=\"\(path)\">\(value)</td>" }

    static func sessionTable(_ report: EvaluationReport, path: String, title: String) -> String {
        var html = "<h3>\(escape(title))</h3>\n<table><tr><th>session</th><th>windows</th><th>accuracy</th><th>ROC AUC</th>"
        html +=
            "<th>steady windows</th><th>steady accuracy</th><th>decision accuracy</th><th>median latency s</th><th>false episodes</th><th>steady false episodes</th><th>walking</th></tr>\n"
        for (index, session) in report.sessions.enumerated() {
            let p = "\(path)sessions.\(index)"
            html +=
                "<tr><td>\(escape(session.session))</td>" + cell("\(p).windows", session.windows)
                + cell("\(p).metrics.accuracy", session.metrics.accuracy)
            html += cell("\(p).metrics.rocAUC", session.metrics.rocAUC) + cell("\(p).steadyWindows", session.steadyWindows)
            html += cell("\(p).steadyMetrics.accuracy", session.steadyWindows == 0 ? nil : session.steadyMetrics.accuracy)
            html += cell("\(p).decisionAccuracy", session.decisionAccuracy) + cell("\(p).events.medianLatency", session.events.medianLatency, 2)
            html +=
                cell("\(p).events.falseEpisodes", session.events.falseEpisodes)
                + cell("\(p).events.steadyFalseEpisodes", session.events.steadyFalseEpisodes)
            html += cell("\(p).walkingFraction", session.walkingFraction, 2)
            html += "</tr>\n"
        }
        return html + "</table>\n"
    }

    static func figure(_ svg: String, caption: String) -> String {
        "<figure>\(svg)<figcaption>\(escape(caption))</figcaption></figure>\n"
    }

    static func rocCurves(_ reports: [EvaluationReport], path: (Int) -> String) -> String {
        let size = 260.0
        let pad = 30.0
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(size + 2 * pad))" height="\(Int(size + 2 * pad))" role="img" aria-label="ROC curves">
            <rect x="\(pad)" y="\(pad)" width="\(size)" height="\(size)" fill="#fafafa" stroke="#999"/>
            <line x1="\(pad)" y1="\(pad + size)" x2="\(pad + size)" y2="\(pad)" stroke="#bbb" stroke-dasharray="4 3"/>
            <text x="\(pad + size / 2)" y="\(pad + size + 22)" font-size="11" text-anchor="middle">false positive rate</text>
            <text x="10" y="\(pad + size / 2)" font-size="11" text-anchor="middle" transform="rotate(-90 10 \(pad + size / 2))">true positive rate</text>

            """
        for (index, report) in reports.enumerated() {
            let windows = report.details.flatMap(\.windows)
            let points = BinaryMetrics.rocCurve(scores: windows.map(\.score), labels: windows.map { $0.label == 1 })
            let line = points.map { String(format: "%.1f,%.1f", pad + $0.0 * size, pad + (1 - $0.1) * size) }.joined(separator: " ")
            svg += "<polyline points=\"\(line)\" fill=\"none\" stroke=\"\(color(index))\" stroke-width=\"2\"/>\n"
            let y = pad + size - 8 - Double(reports.count - 1 - index) * 15
            svg += "<text x=\"\(pad + size - 6)\" y=\"\(y)\" font-size=\"12\" text-anchor=\"end\" fill=\"\(color(index))\">AUC "
            svg += "<tspan data-metric=\"\(path(index))overall.rocAUC\">\(f(report.overall.rocAUC))</tspan></text>\n"
        }
        return svg + "</svg>"
    }

    static func confusionMatrix(_ m: BinaryMetrics, path: String) -> String {
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
            svg +=
                "<text x=\"\(x + 59)\" y=\"\(y + 55)\" font-size=\"20\" text-anchor=\"middle\" data-metric=\"\(path)overall.\(key)\">\(count)</text>"
            svg += "<text x=\"\(x + 59)\" y=\"\(y + 80)\" font-size=\"11\" text-anchor=\"middle\">\(name)</text>"
        }
        return svg + "</svg>"
    }

    static func latencyHistogram(_ events: EvaluationReport.EventFigures, path: String) -> String {
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
        svg += "<text x=\"175\" y=\"290\" font-size=\"11\" text-anchor=\"middle\">detected <tspan data-metric=\"\(path)events.detected\">"
        svg += "\(events.detected)</tspan>, missed <tspan data-metric=\"\(path)events.missed\">\(events.missed)</tspan></text>"
        return svg + "</svg>"
    }

    /// Each candidate's spliced median latency against its steady false
    /// episodes; the chosen one ringed, the hop as the marker's size.
    static func sweepPlot(_ report: EvaluationReport, path: String) -> String {
        let results = report.sweep ?? []
        let latencies = results.compactMap(\.splices.medianLatency)
        let maxLatency = max(2, (latencies.max() ?? 2).rounded(.up))
        let maxEpisodes = max(2, results.map { $0.steadyFalseEpisodes + $0.splices.falseEpisodes }.max() ?? 2)
        let (width, height, pad) = (360.0, 300.0, 40.0)
        func x(_ episodes: Int) -> Double { pad + Double(episodes) / Double(maxEpisodes) * (width - 2 * pad) }
        func y(_ latency: Double) -> Double { height - pad - latency / maxLatency * (height - 2 * pad) }
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"decision sweep\">"
        svg += "<rect x=\"\(pad)\" y=\"\(pad)\" width=\"\(width - 2 * pad)\" height=\"\(height - 2 * pad)\" fill=\"#fafafa\" stroke=\"#999\"/>"
        for (index, result) in results.enumerated() {
            guard let latency = result.splices.medianLatency else { continue }
            let episodes = result.steadyFalseEpisodes + result.splices.falseEpisodes
            let radius = 2 + Double(result.candidate.hop) / 5
            let chosen = result.candidate == report.sweepChoice
            svg += String(
                format:
                    "<circle data-sweep=\"%d\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"#1f77b4\" fill-opacity=\"0.35\" stroke=\"%@\" stroke-width=\"%d\"/>",
                index, x(episodes), y(latency), radius, chosen ? "#d62728" : "#1f77b4", chosen ? 3 : 1)
        }
        svg +=
            "<text x=\"\(width / 2)\" y=\"\(height - 10)\" font-size=\"11\" text-anchor=\"middle\">false episodes in steady pocket data (0 – \(maxEpisodes))</text>"
        svg +=
            "<text x=\"12\" y=\"\(height / 2)\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 12 \(height / 2))\">spliced median latency s (0 – \(f(maxLatency, 0)))</text>"
        if let choice = report.sweepChoice {
            svg +=
                "<text x=\"\(width - pad)\" y=\"\(pad - 8)\" font-size=\"11\" text-anchor=\"end\" fill=\"#d62728\">chosen: hop \(choice.hop), τ \(f(choice.timeConstant, 2)) s, minimum \(f(choice.minimumDuration, 2)) s</text>"
        }
        return svg + "</svg>"
    }

    /// One session, one score line per model; the first model's decision state as ticks.
    static func timeline(_ sessions: [SessionEvaluation], thresholds: [Double], settle: Double) -> String {
        let width = 1000.0
        let height = 120.0
        let pad = 4.0
        let session = sessions[0]
        guard let last = session.windows.last?.time, last > 0 else { return "<p class=\"small\">no windows</p>" }
        func x(_ t: Double) -> Double { pad + min(max(t, 0), last) / last * (width - 2 * pad) }
        func y(_ v: Double) -> Double { pad + (1 - v) * (height - 2 * pad) }
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" role=\"img\" aria-label=\"scores of \(escape(session.session))\">"
        svg += "<rect x=\"0\" y=\"0\" width=\"\(Int(width))\" height=\"\(Int(height))\" fill=\"#fff\" stroke=\"#ccc\"/>"
        for stretch in session.stretches where stretch.label == 1 {
            svg += String(
                format: "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.0f\" fill=\"#ffe9b3\"/>", x(stretch.start),
                max(1, x(stretch.end) - x(stretch.start)), height)
        }
        // The settle margins: transitions, left out of the steady figures.
        for stretch in session.stretches {
            let margins =
                stretch.steadySeconds > 0
                ? [(stretch.start, stretch.start + settle), (stretch.end - settle, stretch.end)] : [(stretch.start, stretch.end)]
            for (from, to) in margins {
                svg += String(
                    format: "<rect class=\"margin\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.0f\" fill=\"#000\" fill-opacity=\"0.12\"/>", x(from),
                    max(1, x(to) - x(from)), height)
            }
        }
        for (index, threshold) in thresholds.enumerated() {
            svg += String(
                format: "<line x1=\"0\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" stroke=\"%@\" stroke-opacity=\"0.6\" stroke-dasharray=\"5 4\"/>",
                y(threshold),
                width, y(threshold), color(index))
        }
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
        for (index, model) in sessions.enumerated() { svg += polyline(model.windows.map { ($0.time, $0.score) }, color(index)) }
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
