import HeadsUpKernels

/// One GRU step as Keras defines it (keras/src/layers/rnn/gru.py), gates
/// in Keras's order z, r, h:
///
///     reset_after = true  (tf.keras 2, Keras 3; bias [2, 3·units]: input row, recurrent row)
///         x_* = x·W_* + b_*        u_* = h·U_* + b'_*
///         z = σ(x_z + u_z)   r = σ(x_r + u_r)   h̃ = act(x_h + r ∘ u_h)
///     reset_after = false (Keras 2.3; bias 3·units)
///         z = σ(x·W_z + h·U_z + b_z)   r = σ(x·W_r + h·U_r + b_r)
///         h̃ = act(x·W_h + (r ∘ h)·U_h + b_h)
///     h' = z ∘ h + (1 − z) ∘ h̃
struct ReferenceGRUCell: ReferenceRecurrentCell {
    let units: Int
    let resetAfter: Bool
    /// [input, 3·units], [units, 3·units], and the bias: 3·units, or 6·units (two rows) with reset_after.
    let kernel: [Float], recurrentKernel: [Float], bias: [Float]
    let activation: Activation, recurrentActivation: Activation

    var stateCount: Int { 1 }

    func step(_ x: ArraySlice<Float>, state: inout [[Float]]) {
        let h = state[0]
        let width = 3 * units
        let inputBias = bias[0..<width]
        let fromInput = ReferenceMath.vectorTimesMatrix(x, kernel, columns: width, bias: inputBias)
        let candidate: [Float]
        let z: [Float]
        if resetAfter {
            let fromState = ReferenceMath.vectorTimesMatrix(h[...], recurrentKernel, columns: width, bias: bias[width..<(2 * width)])
            z = ReferenceMath.activate(recurrentActivation, (0..<units).map { fromInput[$0] + fromState[$0] })
            let r = ReferenceMath.activate(recurrentActivation, (0..<units).map { fromInput[units + $0] + fromState[units + $0] })
            candidate = ReferenceMath.activate(activation, (0..<units).map { fromInput[2 * units + $0] + r[$0] * fromState[2 * units + $0] })
        } else {
            let fromState = ReferenceMath.vectorTimesMatrix(h[...], recurrentKernel, columns: width)
            z = ReferenceMath.activate(recurrentActivation, (0..<units).map { fromInput[$0] + fromState[$0] })
            let r = ReferenceMath.activate(recurrentActivation, (0..<units).map { fromInput[units + $0] + fromState[units + $0] })
            // (r ∘ h)·U_h: the candidate's columns of U only.
            let gated = (0..<units).map { r[$0] * h[$0] }
            var product = [Float](repeating: 0, count: units)
            for row in 0..<units {
                for column in 0..<units { product[column] += gated[row] * recurrentKernel[row * width + 2 * units + column] }
            }
            candidate = ReferenceMath.activate(activation, (0..<units).map { fromInput[2 * units + $0] + product[$0] })
        }
        state[0] = (0..<units).map { z[$0] * h[$0] + (1 - z[$0]) * candidate[$0] }
    }
}
