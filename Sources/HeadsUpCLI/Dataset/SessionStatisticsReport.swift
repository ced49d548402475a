import Foundation
import HeadsUpData

/// One session's statistics as `headsup dataset stats` shows them.
struct SessionStatisticsReport: Encodable {
    var session: String
    var path: String
    var rows: Int
    var durationSeconds: Double
    var effectiveRateHertz: Double
    var labels: String
    var handsRows: Int
    var pocketRows: Int
    var labelChanges: Int
    var gaps: Int
    var gapThresholdSeconds: Double
    var largestGapSeconds: Double
    var backwardSteps: Int
    var droppedByCleaning: Int
    var skippedRows: Int
    var skippedRowErrors: [String]
    var timeUnit: String
    var accelerationUnit: String
    var unitNotes: [String]

    init(path: String, statistics s: SessionStatistics, read: SessionReadReport) {
        session = sessionName(of: path)
        self.path = path
        rows = s.rowCount
        durationSeconds = s.duration
        effectiveRateHertz = s.effectiveRate
        labels = Self.labelSummary(s)
        handsRows = s.handsRowCount
        pocketRows = s.pocketRowCount
        labelChanges = s.labelChangeCount
        gaps = s.gapCount
        gapThresholdSeconds = s.gapThreshold
        largestGapSeconds = s.largestGap
        backwardSteps = s.backwardStepCount
        droppedByCleaning = s.droppedByCleaning
        skippedRows = read.skippedRowCount
        skippedRowErrors = read.skippedRowErrors.map(\.description)
        timeUnit = read.timeUnit.unit.rawValue
        accelerationUnit = read.accelerationUnit.unit.rawValue
        unitNotes = []
        if read.timeUnit.unit != .seconds {
            unitNotes.append("timestamps read as \(read.timeUnit.unit.name) (\(read.timeUnit.reason)), converted to seconds")
        }
        if read.accelerationUnit.unit != .standardGravity {
            unitNotes.append("acceleration read as \(read.accelerationUnit.unit.name) (\(read.accelerationUnit.reason)), converted to g")
            unitNotes.append(
                "axes: recorded in the \(read.axisConvention.unit.name) convention (\(read.axisConvention.reason)); replay and evaluate flip the acceleration's sign for a model trained on CoreMotion data"
            )
        }
    }

    /// "0", "1", "0 (+1 stray 1)" as in the dataset README, or both counts
    /// when the session really mixes labels.
    static func labelSummary(_ s: SessionStatistics) -> String {
        guard let majority = s.majorityLabel else { return "-" }
        let minority = s.minorityRowCount
        if minority == 0 { return "\(majority.rawValue)" }
        if minority <= max(1, s.rowCount / 1000) {
            return "\(majority.rawValue) (+\(minority) stray \(1 - majority.rawValue))"
        }
        return "0: \(s.pocketRowCount), 1: \(s.handsRowCount)"
    }

    /// Seconds the way the dataset README writes them: two decimals below 10, one above.
    static func gapText(_ seconds: Double) -> String {
        String(format: seconds < 10 ? "%.2f" : "%.1f", seconds)
    }
}
