import HeadsUpEvaluation
import Testing

@Suite("Metrics against hand-computed cases")
struct MetricsTests {
    // scikit-learn's documented example: roc_auc_score = 0.75, average_precision_score = 0.8333….
    let scores = [0.1, 0.4, 0.35, 0.8]
    let labels = [false, false, true, true]

    @Test func confusionMatrixAndDerivedFigures() throws {
        let m = BinaryMetrics(scores: scores, labels: labels, threshold: 0.5)
        #expect([m.truePositives, m.falsePositives, m.trueNegatives, m.falseNegatives] == [1, 0, 2, 1])
        #expect(m.accuracy == 0.75)
        #expect(m.precision == 1)
        #expect(m.recall == 0.5)
        #expect(abs(try #require(m.f1) - 2.0 / 3.0) < 1e-12)
        let lower = BinaryMetrics(scores: scores, labels: labels, threshold: 0.35)
        #expect([lower.truePositives, lower.falsePositives, lower.trueNegatives, lower.falseNegatives] == [2, 1, 1, 0])
    }

    @Test func rocAndPrecisionRecallAreas() throws {
        #expect(BinaryMetrics.rocAUC(scores: scores, labels: labels) == 0.75)
        #expect(abs(try #require(BinaryMetrics.averagePrecision(scores: scores, labels: labels)) - 5.0 / 6.0) < 1e-12)
        #expect(BinaryMetrics.rocAUC(scores: [0.2, 0.9], labels: [false, true]) == 1)
        #expect(BinaryMetrics.rocAUC(scores: [0.9, 0.2], labels: [false, true]) == 0)
    }

    @Test func tiesCountHalfAndOneClassIsUndefined() {
        let tied = [0.5, 0.5, 0.5, 0.5]
        #expect(BinaryMetrics.rocAUC(scores: tied, labels: [true, false, true, false]) == 0.5)
        #expect(BinaryMetrics.averagePrecision(scores: tied, labels: [true, false, true, false]) == 0.5)
        // Each positive ties one negative (½) and beats the other (1): (½ + 1)·2 of 4 pairs = 0.75.
        #expect(BinaryMetrics.rocAUC(scores: [0.7, 0.7, 0.7, 0.1], labels: [true, true, false, false]) == 0.75)
        #expect(BinaryMetrics.rocAUC(scores: [0.3, 0.6], labels: [true, true]) == nil)
        let allNegative = BinaryMetrics(scores: [0.3, 0.6], labels: [false, false], threshold: 0.5)
        #expect(allNegative.recall == nil && allNegative.prAUC == nil && allNegative.accuracy == 0.5)
    }

    @Test func rocCurvePoints() {
        let points = BinaryMetrics.rocCurve(scores: scores, labels: labels)
        #expect(points.map { [$0.0, $0.1] } == [[0, 0], [0, 0.5], [0.5, 0.5], [0.5, 1], [1, 1]])
    }
}
