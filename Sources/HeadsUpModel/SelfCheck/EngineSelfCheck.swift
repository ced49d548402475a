import HeadsUpKernels

/// The engine checked against its oracles on the CPU at hand, one kernel
/// level at a time: the plain reference layers (Keras's math written out)
/// and real Keras's outputs. The unit tests run these on every level the
/// build machine has; `headsup model selftest` runs them on a user's board,
/// and the arm64 tests under qemu, where the test bundle is not built.
package enum EngineSelfCheck {
    /// What one check found.
    package struct Outcome: Sendable {
        package let check: String
        package let level: KernelLevel
        /// Models or layers compared.
        package let cases: Int
        /// The largest error against the oracle (absolute, relative above 1).
        package let worstError: Double
        package let problems: [String]
        package var passed: Bool { problems.isEmpty }
    }

    /// LSTM layers of 1 to 50 units, the standard activations (sigmoid,
    /// tanh) and configured ones (hard sigmoid, relu), returning the last
    /// step or every step backwards: every gate layout and leftover block
    /// of the kernels. Each layer's batch of three and its three single
    /// windows must agree with the reference layer within Keras's tolerance,
    /// and with each other to the bit.
    package static func lstmUnitCounts(level: KernelLevel) -> Outcome {
        let kernels = KernelTable.compiled(for: level)
        let (features, steps, batch) = (3, 7, 3)
        var random = SampleValues(seed: 42)
        var problems: [String] = []
        var worst = 0.0
        var cases = 0
        for (activation, recurrentActivation) in [(Activation.tanh, Activation.sigmoid), (.relu, .keras2HardSigmoid)] {
            for units in 1...50 {
                for (returnSequences, goBackwards) in [(false, false), (true, true)] {
                    // Weights large enough that gates saturate on some steps.
                    let kernel = random.next(features * 4 * units, scale: 1.5)
                    let recurrent = random.next(units * 4 * units, scale: 3 / Float(units).squareRoot())
                    let bias = random.next(4 * units, scale: 1)
                    let input = random.next(batch * steps * features, scale: 2)
                    let layer = RecurrentLayer(
                        name: "lstm", className: "LSTM", cell: .lstm, inputShape: [steps, features], units: units,
                        kernel: kernel, recurrentKernel: recurrent, bias: bias, biasRows: 1, activation: activation,
                        recurrentActivation: recurrentActivation, returnSequences: returnSequences, goBackwards: goBackwards, kernels: kernels)
                    let oracle = ReferenceRecurrentLayer(
                        name: "lstm", className: "LSTM",
                        cell: ReferenceLSTMCell(
                            units: units, kernel: kernel, recurrentKernel: recurrent, bias: bias, activation: activation,
                            recurrentActivation: recurrentActivation),
                        steps: steps, inputWidth: features, returnSequences: returnSequences, goBackwards: goBackwards, parameterCount: 0)
                    let expected = oracle.forward(Tensor(batch: batch, exampleShape: [steps, features], values: input)).values
                    let batched = layer.forward(Tensor(batch: batch, exampleShape: [steps, features], values: input)).values
                    let single = (0..<batch).flatMap { example in
                        let window = Array(input[(example * steps * features)..<((example + 1) * steps * features)])
                        return layer.forward(Tensor(batch: 1, exampleShape: [steps, features], values: window)).values
                    }
                    let name = "\(units) units, \(activation)/\(recurrentActivation)" + (returnSequences ? ", return_sequences, go_backwards" : "")
                    cases += 1
                    let error = largestError(batched, expected)
                    worst = max(worst, error)
                    if error > 1e-5 { problems.append("\(name): off the reference by \(error)") }
                    if single != batched { problems.append("\(name): a single window differs from the same window in a batch") }
                }
            }
        }
        return Outcome(check: "LSTM, 1-50 units", level: level, cases: cases, worstError: worst, problems: problems)
    }

    /// Every model of the fixture folder `root` against Keras's outputs, one
    /// window at a time and in batches of 1 to 9 and one past a chunk, which
    /// must give the single windows' values to the bit.
    package static func kerasFixtures(root: String, level: KernelLevel) throws(SelfCheckError) -> Outcome {
        let kernels = KernelTable.compiled(for: level)
        var problems: [String] = []
        var worst = 0.0
        let fixtures = try KerasFixtureCase.all(in: root)
        for fixture in fixtures {
            let model: KerasModel
            do {
                model = try KerasModelLoader.load(
                    path: "\(root)/\(fixture.model)", architecture: fixture.config.map { "\(root)/\($0)" }, kernels: kernels)
            } catch {
                problems.append("\(fixture.name): \(error)")
                continue
            }
            let inputs = try KerasFixtureCase.rows(fixture.inputs, in: root)
            let expected = try KerasFixtureCase.rows(fixture.outputs, in: root)
            guard inputs.count == expected.count, !inputs.isEmpty else {
                problems.append("\(fixture.name): \(inputs.count) inputs but \(expected.count) outputs")
                continue
            }
            let singles = inputs.map { model.predict($0) }
            let error = largestError(singles.flatMap { $0 }, expected.flatMap { $0 })
            worst = max(worst, error)
            if error > 1e-5 || singles.map(\.count) != expected.map(\.count) {
                problems.append("\(fixture.name): off Keras by \(error)")
            }
            for size in Array(1...9) + [KerasModel.chunkSize + 1] {
                let batch = model.predict(batch: (0..<size).flatMap { inputs[$0 % inputs.count] }, count: size)
                if batch != (0..<size).flatMap({ singles[$0 % inputs.count] }) {
                    problems.append("\(fixture.name): a batch of \(size) differs from the same windows one at a time")
                }
            }
        }
        return Outcome(check: "Keras fixtures", level: level, cases: fixtures.count, worstError: worst, problems: problems)
    }

    /// The largest difference, absolute and relative above 1 (as Keras's
    /// tolerance); a NaN or a length mismatch is infinitely wrong.
    static func largestError(_ actual: [Float], _ expected: [Float]) -> Double {
        guard actual.count == expected.count else { return .infinity }
        var worst = 0.0
        for (ours, theirs) in zip(actual, expected) {
            let error = abs(Double(ours) - Double(theirs)) / max(1, abs(Double(theirs)))
            worst = error.isNaN ? .infinity : max(worst, error)
        }
        return worst
    }
}

/// Deterministic values in [-scale, scale] (a 64-bit LCG), so every run
/// and every machine checks the same layers.
struct SampleValues {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(_ count: Int, scale: Float) -> [Float] {
        (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * scale
        }
    }
}
