/// Window-level classification figures for scores against labels
/// (1 = hands/distracted is the positive class).
public struct BinaryMetrics: Sendable, Equatable, Codable {
    public var count: Int
    public var positives: Int
    public var truePositives: Int
    public var falsePositives: Int
    public var trueNegatives: Int
    public var falseNegatives: Int
    public var threshold: Double
    /// nil when one class is absent (undefined).
    public var rocAUC: Double?
    public var prAUC: Double?

    public var accuracy: Double { count == 0 ? 0 : Double(truePositives + trueNegatives) / Double(count) }
    public var precision: Double? {
        truePositives + falsePositives == 0 ? nil : Double(truePositives) / Double(truePositives + falsePositives)
    }
    public var recall: Double? { positives == 0 ? nil : Double(truePositives) / Double(positives) }
    public var f1: Double? {
        guard let p = precision, let r = recall, p + r > 0 else { return nil }
        return 2 * p * r / (p + r)
    }

    /// Window errors at the threshold.
    public var errors: Int { falsePositives + falseNegatives }

    private enum CodingKeys: String, CodingKey {
        case count, positives, truePositives, falsePositives, trueNegatives, falseNegatives, threshold, rocAUC, prAUC
        case accuracy, precision, recall, f1, errors
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        count = try c.decode(Int.self, forKey: .count)
        positives = try c.decode(Int.self, forKey: .positives)
        truePositives = try c.decode(Int.self, forKey: .truePositives)
        falsePositives = try c.decode(Int.self, forKey: .falsePositives)
        trueNegatives = try c.decode(Int.self, forKey: .trueNegatives)
        falseNegatives = try c.decode(Int.self, forKey: .falseNegatives)
        threshold = try c.decode(Double.self, forKey: .threshold)
        rocAUC = try c.decodeIfPresent(Double.self, forKey: .rocAUC)
        prAUC = try c.decodeIfPresent(Double.self, forKey: .prAUC)
    }

    /// The counts and, for readers of the JSON, the figures derived from them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(count, forKey: .count)
        try c.encode(positives, forKey: .positives)
        try c.encode(truePositives, forKey: .truePositives)
        try c.encode(falsePositives, forKey: .falsePositives)
        try c.encode(trueNegatives, forKey: .trueNegatives)
        try c.encode(falseNegatives, forKey: .falseNegatives)
        try c.encode(threshold, forKey: .threshold)
        try c.encodeIfPresent(rocAUC, forKey: .rocAUC)
        try c.encodeIfPresent(prAUC, forKey: .prAUC)
        try c.encode(accuracy, forKey: .accuracy)
        try c.encodeIfPresent(precision, forKey: .precision)
        try c.encodeIfPresent(recall, forKey: .recall)
        try c.encodeIfPresent(f1, forKey: .f1)
        try c.encode(errors, forKey: .errors)
    }

    /// `labels` true = positive; predicted positive when score ≥ threshold.
    public init(scores: [Double], labels: [Bool], threshold: Double) {
        precondition(scores.count == labels.count)
        count = scores.count
        positives = labels.filter { $0 }.count
        self.threshold = threshold
        var tp = 0
        var fp = 0
        var tn = 0
        var fn = 0
        for (score, label) in zip(scores, labels) {
            switch (score >= threshold, label) {
            case (true, true): tp += 1
            case (true, false): fp += 1
            case (false, false): tn += 1
            case (false, true): fn += 1
            }
        }
        truePositives = tp
        falsePositives = fp
        trueNegatives = tn
        falseNegatives = fn
        rocAUC = Self.rocAUC(scores: scores, labels: labels)
        prAUC = Self.averagePrecision(scores: scores, labels: labels)
    }

    /// Area under the ROC curve: the probability that a random positive
    /// outscores a random negative, ties counting half (Mann–Whitney U).
    public static func rocAUC(scores: [Double], labels: [Bool]) -> Double? {
        let positives = labels.filter { $0 }.count
        let negatives = labels.count - positives
        guard positives > 0, negatives > 0 else { return nil }
        let order = scores.indices.sorted { scores[$0] < scores[$1] }
        var rankSum = 0.0
        var i = 0
        while i < order.count {
            var j = i
            while j + 1 < order.count, scores[order[j + 1]] == scores[order[i]] { j += 1 }
            let averageRank = Double(i + j) / 2 + 1
            for k in i...j where labels[order[k]] { rankSum += averageRank }
            i = j + 1
        }
        let u = rankSum - Double(positives * (positives + 1)) / 2
        return u / Double(positives * negatives)
    }

    /// Area under the precision–recall curve as average precision: the mean
    /// of the precision at each positive's rank (tied scores taken together),
    /// as scikit-learn's average_precision_score.
    public static func averagePrecision(scores: [Double], labels: [Bool]) -> Double? {
        let positives = labels.filter { $0 }.count
        guard positives > 0 else { return nil }
        let order = scores.indices.sorted { scores[$0] > scores[$1] }
        var truePositives = 0
        var seen = 0
        var previousRecall = 0.0
        var area = 0.0
        var i = 0
        while i < order.count {
            var j = i
            while j + 1 < order.count, scores[order[j + 1]] == scores[order[i]] { j += 1 }
            for k in i...j {
                seen += 1
                if labels[order[k]] { truePositives += 1 }
            }
            let recall = Double(truePositives) / Double(positives)
            let precision = Double(truePositives) / Double(seen)
            area += (recall - previousRecall) * precision
            previousRecall = recall
            i = j + 1
        }
        return area
    }

    /// (false positive rate, true positive rate) points from the highest threshold down.
    public static func rocCurve(scores: [Double], labels: [Bool]) -> [(Double, Double)] {
        let positives = Double(labels.filter { $0 }.count)
        let negatives = Double(labels.count) - positives
        guard positives > 0, negatives > 0 else { return [] }
        let order = scores.indices.sorted { scores[$0] > scores[$1] }
        var points: [(Double, Double)] = [(0, 0)]
        var tp = 0.0
        var fp = 0.0
        var i = 0
        while i < order.count {
            var j = i
            while j + 1 < order.count, scores[order[j + 1]] == scores[order[i]] { j += 1 }
            for k in i...j { if labels[order[k]] { tp += 1 } else { fp += 1 } }
            points.append((fp / negatives, tp / positives))
            i = j + 1
        }
        return points
    }
}
