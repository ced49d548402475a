import Foundation
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

/// A deterministic stand-in for the model: the window's mean |gyro| mapped to (0, 1).
struct MotionEnergyScorer: WindowScorer {
    func score(_ window: MotionWindow) -> Double {
        var energy = 0.0
        for step in 0..<window.length {
            energy +=
                abs(Double(window[.rotationRateX, step])) + abs(Double(window[.rotationRateY, step])) + abs(Double(window[.rotationRateZ, step]))
        }
        return 1 - exp(-energy / Double(window.length) * 3)
    }
}

@Suite("Evaluation report")
struct ReportTests {
    func evaluate() throws -> EvaluationReport {
        let evaluator = SessionEvaluator(
            scorer: MotionEnergyScorer(), windowing: .init(length: 50, hop: 25), distraction: .init(), threshold: 0.5)
        let sessions = ["data_sensors_data_3", "data_sensors_data_4"]
        let evaluations = try sessions.map { name in
            try evaluator.evaluate(path: TestEnvironment.path("datasets/phone-motion-v1/sessions/\(name).csv"), name: name)
        }
        return EvaluationReport(
            model: "test", threshold: 0.5, hop: 25, layout: "time-major", settle: 5, evaluations: evaluations, date: Date(timeIntervalSince1970: 0))
    }

    @Test func windowsLabelsAndStretchesComeFromThePipeline() throws {
        let report = try evaluate()
        let hands = report.details[0]
        let pocket = report.details[1]
        #expect(hands.windows.allSatisfy { $0.label == 1 })
        #expect(pocket.windows.allSatisfy { $0.label == 0 })
        // 10,316 rows at ~100 Hz with no gaps: about 103 s → (5150 − 50) / 25 + 1 windows.
        #expect(abs(hands.windows.count - 205) <= 2)
        #expect(hands.stretches.map(\.label) == [1])
        #expect(pocket.stretches.allSatisfy { $0.label == 0 })
        for window in hands.windows { #expect(window.score >= 0 && window.score <= 1) }
        #expect(report.overall.count == hands.windows.count + pocket.windows.count)
        #expect(report.events.handsStretches == 1)
        #expect(report.events.detected + report.events.missed == 1)
    }

    @Test func theHTMLShowsExactlyTheJSONFigures() throws {
        let report = try evaluate()
        let json = try #require(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any])
        let html = HTMLReport.render(report)
        #expect(html.hasPrefix("<!DOCTYPE html>") && html.contains("<svg") && !html.contains("<script"))
        let pattern = try NSRegularExpression(pattern: #"data-metric="([^"]+)">([^<]+)<"#)
        let matches = pattern.matches(in: html, range: NSRange(html.startIndex..., in: html))
        #expect(matches.count > 30)
        for match in matches {
            let path = String(html[Range(match.range(at: 1), in: html)!])
            let shown = String(html[Range(match.range(at: 2), in: html)!])
            let value = lookup(json, path)
            if let number = value as? Double {
                let digits = shown.split(separator: ".").last.map { $0.count } ?? 0
                #expect(shown == String(format: "%.\(shown.contains(".") ? digits : 0)f", number), "\(path): \(shown) vs \(number)")
            } else if let number = value as? Int {
                #expect(shown == String(number), "\(path)")
            } else {
                #expect(shown == "–", "\(path) is \(String(describing: value)) in the JSON")
            }
        }
    }

    /// The JSON value at a dotted path (`sessions.0.metrics.accuracy`, `models.1.overall.rocAUC`).
    func lookup(_ json: Any, _ path: String) -> Any? {
        var node: Any? = json
        for part in path.split(separator: ".").map(String.init) {
            if let index = Int(part), let array = node as? [Any] {
                node = index < array.count ? array[index] : nil
            } else {
                node = (node as? [String: Any])?[part]
            }
        }
        return node
    }

    /// A session CSV at 100 Hz: `pocket` seconds of pocket data then `hands`
    /// seconds in the hands; the gyro spins (a high score) where `busy` says.
    static func session(pocket: Double, hands: Double, busy: (Double) -> Bool) -> String {
        var text = ""
        var t = 0.0
        while t < pocket + hands {
            let label = t < pocket ? 0 : 1
            let spin = busy(t) ? 2.0 : 0.0
            text += String(format: "%d,%.3f,0,0,-1,%.1f,0,0,20,0,-40\n", label, 1_700_000_000 + t, spin)
            t += 0.01
        }
        return text
    }

    /// The settle rule, pinned: windows within `settle` of a session's start
    /// or end or of a label change are transitions; a false episode there
    /// counts in "all" but not in "steady", one in the middle counts in both.
    @Test func theSettleMarginSeparatesTransitionsFromSteadyState() throws {
        let directory = try TemporaryDirectory()
        // 40 s pocket (spinning 0–2 s, at the start margin, and 18–22 s, steady), then 30 s hands (spinning).
        let path = try directory.write(
            "session.csv", Self.session(pocket: 40, hands: 30) { t in t < 2 || (t >= 18 && t < 22) || t >= 40 })
        let settle = 8.0
        let evaluator = SessionEvaluator(
            scorer: MotionEnergyScorer(), windowing: .init(length: 50, hop: 25), distraction: .init(), threshold: 0.5, settle: settle)
        let evaluation = try evaluator.evaluate(path: path, name: "made")
        #expect(evaluation.stretches.map(\.label) == [0, 1])
        for window in evaluation.windows {
            let start = window.time - 0.98
            let inPocket = start >= settle && window.time <= 39.99 - settle
            let inHands = start >= 40 + settle && window.time <= 69.99 - settle
            #expect(window.steady == (inPocket || inHands), "window ending \(window.time)")
        }
        let pocket = evaluation.stretches[0]
        #expect(pocket.falseEpisodes == 2)
        #expect(pocket.steadyFalseEpisodes == 1)
        #expect(abs(pocket.steadySeconds - (39.99 - 2 * settle)) < 0.02)
        let report = EvaluationReport(
            model: "made", threshold: 0.5, hop: 25, layout: "time-major", settle: settle, evaluations: [evaluation], date: Date())
        #expect(report.events.falseEpisodes == 2 && report.events.steadyFalseEpisodes == 1)
        #expect(report.steadyOverall.count == evaluation.windows.filter(\.steady).count)
        #expect(report.steadyOverall.count < report.overall.count)
        // The steady windows of the busy middle stretch are the only steady errors.
        #expect(report.steadyOverall.falsePositives > 0 && report.steadyOverall.falseNegatives == 0)
    }

    /// Several models in one report: each model's figures under models.N, one ROC and one score line per model.
    @Test func aComparisonShowsEveryModelsFiguresFromItsJSON() throws {
        let one = try evaluate()
        var other = one
        other.model = "second"
        let comparison = ModelComparison(models: [one, other])
        let json = try JSONSerialization.jsonObject(with: comparison.json())
        let html = HTMLReport.render(comparison.models)
        let pattern = try NSRegularExpression(pattern: #"data-metric="([^"]+)">([^<]+)<"#)
        let paths = pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { String(html[Range($0.range(at: 1), in: html)!]) }
        #expect(paths.contains("models.1.overall.rocAUC") && paths.contains("models.0.steadyOverall.accuracy"))
        #expect(
            paths.allSatisfy { lookup(json, $0) != nil || html.contains("data-metric=\"\($0)\">–") }, "\(paths.filter { lookup(json, $0) == nil })")
        #expect(html.components(separatedBy: "<polyline").count - 1 >= 2 + 2 * one.details.count)
    }
}
