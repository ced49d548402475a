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

    /// On every kernel level this CPU runs, with the standard and configured activations.
    @Test(
        arguments: KernelTable.supportedLevels,
        [
            (Activation.tanh, Activation.sigmoid), (Activation.relu, Activation.keras2HardSigmoid),
        ])
    func everyUnitCountMatchesTheReferenceLSTM(level: KernelLevel, activations: (Activation, Activation)) {
        let (activation, recurrentActivation) = activations
        let features = 3
        let steps = 7
        let batch = 3
        var seed: UInt64 = 42
        /// Deterministic values in [-scale, scale], a new seed each time.
        func random(_ count: Int, _ scale: Float) -> [Float] {
            seed += 1
            return VectorMathTests.samples(count, scale: scale, seed: seed)
        }
        for units in 1...50 {
            for (returnSequences, goBackwards) in [(false, false), (true, true)] {
                // Weights large enough that gates saturate on some steps.
                let kernel = random(features * 4 * units, 1.5)
                let recurrent = random(units * 4 * units, 3 / Float(units).squareRoot())
                let bias = random(4 * units, 1)
                let input = random(batch * steps * features, 2)
                let layer = RecurrentLayer(
                    name: "lstm", className: "LSTM", cell: .lstm, inputShape: [steps, features], units: units,
                    kernel: kernel, recurrentKernel: recurrent, bias: bias, biasRows: 1, activation: activation,
                    recurrentActivation: recurrentActivation, returnSequences: returnSequences, goBackwards: goBackwards,
                    kernels: .compiled(for: level))
                let oracle = ReferenceRecurrentLayer(
                    name: "lstm", className: "LSTM",
                    cell: ReferenceLSTMCell(
                        units: units, kernel: kernel, recurrentKernel: recurrent, bias: bias, activation: activation,
                        recurrentActivation: recurrentActivation),
                    steps: steps, inputWidth: features, returnSequences: returnSequences, goBackwards: goBackwards, parameterCount: 0)
                let expected = oracle.forward(Tensor(shape: [batch, steps, features], values: input)).values.map(Double.init)
                let batched = layer.forward(Tensor(shape: [batch, steps, features], values: input)).values
                let perExample = (0..<batch).flatMap { example in
                    let window = Array(input[(example * steps * features)..<((example + 1) * steps * features)])
                    return layer.forward(Tensor(shape: [1, steps, features], values: window)).values
                }
                for (path, actual) in [("batch", batched), ("single", perExample)] {
                    #expect(actual.count == expected.count)
                    // Absolute, relative above 1 (relu's cell state grows), as for the Keras fixtures.
                    let worst = zip(actual, expected).map { abs(Double($0) - $1) / max(1, abs($1)) }.max() ?? .infinity
                    #expect(worst < 1e-5, "\(level.rawValue): \(units) units, \(path), return_sequences \(returnSequences): off by \(worst)")
                }
            }
        }
    }
}
