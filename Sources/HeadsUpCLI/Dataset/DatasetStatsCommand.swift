import ArgumentParser
import Foundation
import HeadsUpData
import HeadsUpEvaluation

/// `headsup dataset stats`: what each recording really holds (rate, labels,
/// gaps, backwards timestamps) before anyone trains on it.
struct DatasetStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Per-session rows, duration, rate, labels, gaps and backwards timestamps.",
        discussion: """
            Gaps, the largest gap and backwards steps compare consecutive rows as written. \
            'dropped' counts the rows cleaning discards because their time does not pass the \
            latest kept row. Files that fail to read are reported and skipped; the exit status \
            is then 1.
            """)

    @OptionGroup var files: SessionFileArguments
    @OptionGroup var reading: SessionReadingOptions

    @Option(help: "Output: table, markdown or json.")
    var format: OutputFormat = .table

    func run() throws {
        var reports: [SessionStatisticsReport] = []
        var failures: [String] = []
        for path in try files.sessionFiles() {
            do {
                reports.append(try Self.statistics(of: path, reading: reading))
            } catch {
                failures.append("\(error)")
            }
        }
        print(render(reports))
        for report in reports where report.skippedRows > 0 {
            printError("warning: \(report.session): skipped \(report.skippedRows) malformed rows (--lenient); first:")
            for error in report.skippedRowErrors { printError("  \(error)") }
        }
        for failure in failures { printError("error: \(failure)") }
        if !failures.isEmpty { throw ExitCode.failure }
    }

    static func statistics(of path: String, reading: SessionReadingOptions) throws -> SessionStatisticsReport {
        let reader = try SessionCSVReader(path: path, options: reading.csvOptions)
        var statistics = SessionStatistics(gapThreshold: reading.gapLimit)
        while let sample = try reader.next() { statistics.add(sample) }
        return SessionStatisticsReport(path: path, statistics: statistics, read: reader.report)
    }

    func render(_ reports: [SessionStatisticsReport]) -> String {
        if format == .json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return String(decoding: (try? encoder.encode(reports)) ?? Data(), as: UTF8.self)
        }
        let gapHeader = "gaps > \(Self.trimmed(reading.gapLimit)) s"
        var table = TextTable(
            header: [
                "file", "rows", "duration s", "rate Hz", "labels", "label changes", gapHeader, "max gap s",
                "backwards steps", "dropped", "skipped",
            ],
            rightAligned: [1, 2, 3, 5, 6, 7, 8, 9, 10])
        for report in reports {
            table.rows.append([
                report.session, "\(report.rows)", String(format: "%.0f", report.durationSeconds),
                String(format: "%.1f", report.effectiveRateHertz), report.labels, "\(report.labelChanges)",
                "\(report.gaps)", SessionStatisticsReport.gapText(report.largestGapSeconds), "\(report.backwardSteps)",
                "\(report.droppedByCleaning)", "\(report.skippedRows)",
            ])
        }
        var text = format == .markdown ? table.renderedAsMarkdown() : table.renderedForTerminal()
        if format == .table, reports.count > 1 {
            let rows = reports.map(\.rows).reduce(0, +)
            let hours = reports.map(\.durationSeconds).reduce(0, +) / 3600
            text += "\n\(reports.count) sessions, \(rows) rows, \(String(format: "%.2f", hours)) h"
        }
        for report in reports {
            for note in report.unitNotes { text += "\nnote: \(report.session): \(note)" }
        }
        return text
    }

    private static func trimmed(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }
}
