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
            model: "test", threshold: 0.5, hop: 25, layout: "time-major", evaluations: evaluations, date: Date(timeIntervalSince1970: 0))
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

    /// The JSON value at a dotted path; derived figures (accuracy, F1, …) are computed from the JSON's counts.
    func lookup(_ json: [String: Any], _ path: String) -> Any? {
        var parts = path.split(separator: ".").map(String.init)
        var node: Any? = json
        if parts.first == "sessions", let sessions = json["sessions"] as? [[String: Any]], let index = Int(parts[1]) {
            node = sessions[index]
            parts.removeFirst(2)
            if parts.count == 1, ["windows", "decisionAccuracy"].contains(parts[0]) { return (node as! [String: Any])[parts[0]] }
            return metric(
                (node as! [String: Any])["metrics"] as! [String: Any], events: (node as! [String: Any])["events"] as! [String: Any], parts[0])
        }
        if parts.first == "overall" {
            if parts[1] == "windows" { return (json["overall"] as! [String: Any])["count"] }
            if parts[1] == "decisionAccuracy" { return json["overallDecisionAccuracy"] }
            return metric(json["overall"] as! [String: Any], events: json["events"] as! [String: Any], parts[1])
        }
        for part in parts { node = (node as? [String: Any])?[part] }
        return node
    }

    func metric(_ m: [String: Any], events: [String: Any], _ key: String) -> Any? {
        let tp = Double(m["truePositives"] as! Int)
        let fp = Double(m["falsePositives"] as! Int)
        let tn = Double(m["trueNegatives"] as! Int)
        let fn = Double(m["falseNegatives"] as! Int)
        switch key {
        case "accuracy": return (tp + tn) / (tp + tn + fp + fn)
        case "precision": return tp + fp == 0 ? nil : tp / (tp + fp)
        case "recall": return tp + fn == 0 ? nil : tp / (tp + fn)
        case "f1":
            guard tp + fp > 0, tp + fn > 0, tp > 0 else { return nil }
            let p = tp / (tp + fp)
            let r = tp / (tp + fn)
            return 2 * p * r / (p + r)
        case "medianLatency", "falseEpisodesPerHour": return events[key]
        default: return m[key]
        }
    }
}
