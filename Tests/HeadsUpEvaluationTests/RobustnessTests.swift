import Foundation
import HeadsUpData
import HeadsUpEvaluation
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

/// `evaluate --perturb`: every perturbation beside the clean figures, per
/// position, with a scorer whose dependence on the gyroscope is known.
@Suite("Robustness")
struct RobustnessTests {
    /// 60 s at 100 Hz: still (gyro x 0.001 rad/s, measured) or spinning (2 rad/s).
    static func session(label: Int, spin: Double) -> String {
        var text = ""
        var t = 0.0
        while t < 60 {
            text += String(format: "%d,%.3f,0,0,-1,%.3f,0,0,20,0,-40\n", label, 1_700_000_000 + t, spin)
            t += 0.01
        }
        return text
    }

    func table(_ perturbations: [SensorPerturbation]) throws -> (EvaluationReport, RobustnessTable) {
        let directory = try TemporaryDirectory()
        let hands = try directory.write("Pixel_A_Hard_InHand_1_1.csv", Self.session(label: 1, spin: 2))
        let purse = try directory.write("Pixel_A_Hard_Purse_1_0.csv", Self.session(label: 0, spin: 0.001))
        let pocket = try directory.write("walk.csv", Self.session(label: 0, spin: 0.001))
        let model = EvaluationRun.Model(
            scorer: MotionEnergyScorer(), windowing: .init(length: 50, hop: 25), distraction: .init(), threshold: 0.5, layout: "time-major",
            csv: .init())
        let run = EvaluationRun()
        let parts = [EvaluationRun.Part(model: model, files: [hands, purse, pocket])]
        let report = try run.report(name: "energy", parts: parts, date: Date(timeIntervalSince1970: 0))
        return (report, try run.robustness(parts: parts, perturbations: perturbations, clean: report))
    }

    @Test func eachPerturbationStandsBesideTheCleanFiguresPerPosition() throws {
        let (report, table) = try table(
            [.magneticOffset(.init(repeating: 600)), .rotation(.yaw, degrees: 90), .rotationRateBias(.init(repeating: 0.5)), .rate(100)])
        #expect(table.rows.map(\.perturbation) == ["clean", "mag-offset=600", "rotate=yaw:90", "gyro-bias=0.5", "rate=100"])
        let clean = table.rows[0]
        #expect(clean.accuracy == report.overall.accuracy && clean.accuracy == 1)
        #expect(clean.positions.map(\.position) == [CarryPosition.hands, "purse", CarryPosition.unspecified])
        #expect(clean.positions.map(\.steadyShare) == [1, 0, 0])
        // The scorer reads the gyroscope's energy only: a magnetometer offset, a
        // turn about z and another sampling rate move nothing.
        for row in table.rows[1...] where row.perturbation != "gyro-bias=0.5" {
            #expect(abs(row.accuracyChange) < 1e-9, "\(row.perturbation)")
            #expect(row.positions.map(\.steadyShare) == [1, 0, 0], "\(row.perturbation)")
        }
        // A gyroscope bias makes the still phones spin to it: every still window is called distracted.
        let biased = table.rows[3]
        #expect(biased.calibration && biased.positions.map(\.steadyShare) == [1, 1, 1])
        #expect(biased.accuracyChange < -0.5)
        #expect(abs(table.worstCalibrationLoss + biased.accuracyChange) < 1e-12)
        #expect(table.text.contains("gyro-bias=0.5") && table.text.contains("largest accuracy loss"))
    }

    @Test func theTableTravelsInTheReportsJSONAndText() throws {
        var (report, table) = try table([.accelerationBias(.init(repeating: 0.05))])
        #expect(table.worstCalibrationLoss == 0 && table.worstCalibrationLoss.sign == .plus)
        report.robustness = table
        let decoded = try JSONDecoder().decode(EvaluationReport.self, from: try report.json())
        #expect(decoded.robustness == table)
        #expect(report.text.contains("acc-bias=0.05"))
        let html = HTMLReport.render(report)
        #expect(html.contains("<h2>Perturbations</h2>") && html.contains("data-perturbation=\"acc-bias=0.05\""))
        #expect(html.contains("data-metric=\"robustness.rows.1.accuracyChange\""))
        #expect(!HTMLReport.render(try self.table([]).0).contains("<h2>Perturbations</h2>"))
    }
}
