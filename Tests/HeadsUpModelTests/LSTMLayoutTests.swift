import Foundation
import HeadsUpKernels
import Testing

@testable import HeadsUpModel

/// The LSTM's packed gate order (``LSTMGateLayout``) for every size of its
/// leftover block: a layer of each unit count from 1 to 50 against the
/// reference LSTM (`Reference/ReferenceLSTM.swift`), through the single-window and the batch paths,
/// with the standard and with configured activations. The Keras fixtures
/// cover only a few unit counts; this covers every remainder mod 16.
@Suite("LSTM gate layout")
struct LSTMLayoutTests {
    @Test func columnsOfEveryGateLandInsideTheSameNumberOfVectors() {
        for units in 1...70 {
            let layout = LSTMGateLayout(units: units)
            #expect(PackedMatrix.paddedWidth(layout.columns) == PackedMatrix.paddedWidth(4 * units), "units \(units)")
            var seen = Set<Int>()
            for gate in 0..<4 {
                for unit in 0..<units { seen.insert(layout.column(gate: gate, unit: unit)) }
            }
            #expect(seen.count == 4 * units && seen.allSatisfy { $0 < layout.columns }, "units \(units)")
        }
        let seed = LSTMGateLayout(units: 50)
        #expect(seed.fullUnits == 48 && seed.leftoverStride == 4 && seed.leftoverVectors == 1)
        #expect(seed.column(gate: 1, unit: 47) == 95 && seed.column(gate: 3, unit: 49) == 192 + 13)
    }

    /// On every kernel level this CPU runs, with the standard and configured
    /// activations (what `headsup model selftest` runs on a board).
    @Test(arguments: KernelTable.supportedLevels)
    func everyUnitCountMatchesTheReferenceLSTM(level: KernelLevel) {
        let outcome = EngineSelfCheck.lstmUnitCounts(level: level)
        #expect(outcome.cases == 200)
        #expect(outcome.problems == [])
        #expect(outcome.worstError < 1e-5)
    }
}
