import Foundation
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

/// `evaluate` by carry position: where a session's position comes from, and
/// the per-position figures of small synthetic sessions.
@Suite("Carry positions")
struct CarryPositionTests {
    @Test func aPositionComesFromTheSidecarThenTheManifestThenTheFileName() throws {
        #expect(CarryPosition.fromFileName("/d/sessions/Pixel_Jamie_Hard_Purse_2_0.csv") == "purse")
        #expect(CarryPosition.fromFileName("Pixel_Jamie_Hard_NeckPouch_1_0.csv") == "neck-pouch")
        #expect(CarryPosition.fromFileName("Samsung_Carmelo_Hard_BackPocket_1_0.csv") == "pocket")
        #expect(CarryPosition.fromFileName("Nexus_Jamie_Hard_InHand_1_1.csv") == CarryPosition.hands)
        #expect(CarryPosition.fromFileName("Pixel_Jamie_Hard_SwingingArm_1_0.csv") == "swinging-arm")
        #expect(CarryPosition.fromFileName("data_sensors_data_3.csv") == nil)
        #expect(CarryPosition.fromFileName("data_new_20190530_174330_0.csv") == nil)

        let directory = try TemporaryDirectory()
        let named = try directory.write("Pixel_A_Hard_Purse_1_0.csv", "")
        let plain = try directory.write("walk.csv", "")
        #expect(CarryPosition.resolve(path: named) == "purse")
        #expect(CarryPosition.resolve(path: plain) == nil)
        #expect(CarryPosition.resolve(path: plain, manifest: [plain: "armband"]) == "armband")
        // The sidecar `record --label` writes beside the CSV wins.
        _ = try directory.write("walk.json", #"{"format": "headsup-recording", "position": "neck_pouch", "label": 0}"#)
        #expect(CarryPosition.resolve(path: plain, manifest: [plain: "armband"]) == "neck-pouch")
        // One that names no position is passed over.
        _ = try directory.write("walk.json", #"{"format": "headsup-recording"}"#)
        #expect(CarryPosition.resolve(path: plain, manifest: [plain: "armband"]) == "armband")
    }

    /// Four 60 s sessions at 100 Hz: in the hands (spinning: found), a purse
    /// (still but spinning 25–35 s: one steady false episode), an armband named
    /// by a sidecar (still) and an unnamed pocket → hands walk.
    func report() throws -> (EvaluationReport, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let hands = try directory.write("Pixel_A_Hard_InHand_1_1.csv", ReportTests.session(pocket: 0, hands: 60) { _ in true })
        let purse = try directory.write("Pixel_A_Hard_Purse_1_0.csv", ReportTests.session(pocket: 60, hands: 0) { $0 >= 25 && $0 < 35 })
        let armband = try directory.write("walk.csv", ReportTests.session(pocket: 60, hands: 0) { _ in false })
        _ = try directory.write("walk.json", #"{"position": "armband"}"#)
        let unnamed = try directory.write("mixed.csv", ReportTests.session(pocket: 40, hands: 30) { $0 >= 40 })
        let model = EvaluationRun.Model(
            scorer: MotionEnergyScorer(), windowing: .init(length: 50, hop: 25), distraction: .init(), threshold: 0.5, layout: "time-major",
            csv: .init())
        let report = try EvaluationRun().report(
            name: "energy", parts: [.init(model: model, files: [hands, purse, armband, unnamed])], date: Date(timeIntervalSince1970: 0))
        return (report, directory)
    }

    @Test func eachPositionGetsItsOwnFiguresAndTheHandsTheirRecall() throws {
        let (report, _) = try report()
        #expect(report.details.map(\.position) == [CarryPosition.hands, "purse", "armband", nil])
        let table = try #require(report.positions)
        #expect(table.positions.map(\.position) == [CarryPosition.hands, "armband", "purse", CarryPosition.unspecified])
        let byName = Dictionary(uniqueKeysWithValues: table.positions.map { ($0.position, $0) })
        let hands = try #require(byName[CarryPosition.hands])
        // The hands windows of the InHand session and of the unnamed walk's second part.
        #expect(hands.sessions == 2 && hands.distracted)
        #expect(hands.steadyShare == 1 && hands.stretches == 2 && hands.detected == 2)
        #expect(try #require(hands.medianLatency) < 2.5)
        let purse = try #require(byName["purse"])
        #expect(purse.sessions == 1 && !purse.distracted)
        #expect(purse.steadyFalseEpisodes == 1)
        // 10 s of spinning in about 50 steady seconds: roughly a fifth of the steady windows.
        let share = try #require(purse.steadyShare)
        #expect(share > 0.15 && share < 0.3, "\(share)")
        #expect(abs(purse.steadyHours * 3600 - (59.99 - 10)) < 0.1)
        #expect(abs(try #require(purse.steadyFalseEpisodesPerHour) - 3600 / (59.99 - 10)) < 1)
        let armband = try #require(byName["armband"])
        #expect(armband.steadyShare == 0 && armband.steadyFalseEpisodes == 0)
        #expect(byName[CarryPosition.unspecified]?.sessions == 1)

        // The trade-off: the purse is the worst position at the threshold, and
        // a higher threshold never raises the worst false rate.
        #expect(table.tradeOff.count == 19)
        let atHalf = try #require(table.tradeOff.first { abs($0.threshold - 0.5) < 1e-9 })
        #expect(atHalf.worstPosition == "purse" && atHalf.worstFalseRate == purse.steadyShare && atHalf.handsRecall == 1)
        let rates = table.tradeOff.compactMap(\.worstFalseRate)
        #expect(zip(rates, rates.dropFirst()).allSatisfy { $1 <= $0 })

        #expect(report.text.contains("by carry position"))
        #expect(report.text.contains("trade-off"))
    }

    @Test func theHTMLShowsThePositionTableFromTheJSONAndATracePlotPerPosition() throws {
        let (report, _) = try report()
        let json = try #require(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any])
        let html = HTMLReport.render(report)
        #expect(html.contains("By carry position"))
        for position in ["hands", "armband", "purse", "unspecified"] { #expect(html.contains("data-position=\"\(position)\"")) }
        #expect(html.contains("data-tradeoff=\"0\""))
        let pattern = try NSRegularExpression(pattern: #"data-metric="(positions\.[^"]+)">([^<]+)<"#)
        let matches = pattern.matches(in: html, range: NSRange(html.startIndex..., in: html))
        #expect(matches.count == 4 * 8)
        for match in matches {
            let path = String(html[Range(match.range(at: 1), in: html)!])
            let shown = String(html[Range(match.range(at: 2), in: html)!])
            if let number = ReportTests().lookup(json, path) as? Double {
                let digits = shown.contains(".") ? shown.split(separator: ".").last.map { $0.count } ?? 0 : 0
                #expect(shown == String(format: "%.\(digits)f", number), "\(path): \(shown) vs \(number)")
            } else {
                #expect(shown == "–", "\(path)")
            }
        }
    }

    /// Sessions that name no position (the bundled data set's) keep the
    /// report as it was: no table, no JSON key, no HTML section.
    @Test func sessionsWithoutPositionsLeaveTheReportAsItWas() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("session.csv", ReportTests.session(pocket: 30, hands: 30) { $0 >= 30 })
        let evaluator = SessionEvaluator(
            scorer: MotionEnergyScorer(), windowing: .init(length: 50, hop: 25), distraction: .init(), threshold: 0.5)
        let report = EvaluationReport(
            model: "made", threshold: 0.5, hop: 25, layout: "time-major", settle: 5,
            evaluations: [try evaluator.evaluate(path: path, name: "session")], date: Date(timeIntervalSince1970: 0))
        #expect(report.positions == nil)
        #expect(!report.text.contains("carry position"))
        let json = String(decoding: try report.json(), as: UTF8.self)
        #expect(!json.contains("\"positions\"") && !json.contains("\"position\""))
        #expect(!HTMLReport.render(report).contains("By carry position"))
    }
}
