import ArgumentParser
import Foundation
import HeadsUpKernels
import HeadsUpModel

/// `headsup model selftest`: the engine against its oracles on this CPU,
/// on every kernel level it runs (or the one `HEADSUP_KERNELS` names), so a
/// board whose CPU no test machine had can be checked where it stands.
struct ModelSelftestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "selftest",
        abstract: "Check the engine's kernels on this CPU against the reference layers (and Keras's outputs with --fixtures).",
        discussion: """
            Every level this CPU runs is checked: LSTM layers of 1 to 50 units against the plain \
            reference layers, and each window alone against the same window in a batch (to the bit). \
            With --fixtures, the Keras fixture models of the source tree (Tests/Fixtures/keras) too. \
            Exits 1 if anything disagrees.
            """)

    @Option(help: "A Keras fixture folder (with cases.json) to check against Keras's own outputs.", completion: .directory)
    var fixtures: String?

    func run() throws {
        let levels: [KernelLevel]
        if let named = ProcessInfo.processInfo.environment[KernelTable.environmentVariable], !named.isEmpty {
            levels = [try KernelChoice.fromEnvironment().level]
        } else {
            levels = KernelTable.supportedLevels
        }
        print("CPU: \(CPUDescription.current())")
        var table = TextTable(header: ["Level", "Check", "Cases", "Worst error", "Result"], rightAligned: [2, 3])
        var problems: [String] = []
        for level in levels {
            var outcomes = [EngineSelfCheck.lstmUnitCounts(level: level)]
            if let fixtures { outcomes.append(try EngineSelfCheck.kerasFixtures(root: fixtures, level: level)) }
            for outcome in outcomes {
                table.rows.append([
                    level.rawValue, outcome.check, String(outcome.cases), String(format: "%.1e", outcome.worstError),
                    outcome.passed ? "ok" : "FAILED",
                ])
                problems += outcome.problems.map { "\(level.rawValue), \(outcome.check): \($0)" }
            }
        }
        print(table.renderedForTerminal())
        guard problems.isEmpty else {
            FileHandle.standardError.write(Data((problems.joined(separator: "\n") + "\n").utf8))
            throw ExitCode.failure
        }
    }
}
