import HeadsUpKernels

/// One LSTM step as Keras defines it (keras/src/layers/rnn/lstm.py):
///
///     z = x·W + h·U + b            four blocks of `units`: i, f, c, o
///     i = σ(z_i)   f = σ(z_f)   o = σ(z_o)        σ: recurrent_activation
///     c' = f ∘ c + i ∘ act(z_c)                    act: activation
///     h' = o ∘ act(c')
///
/// The fast path (`Layers/RecurrentLayer.swift` over HeadsUpKernels' `RecurrentKernels`) computes the same with packed,
/// reordered weights and vector code; this is the definition it is tested against.
struct ReferenceLSTMCell: ReferenceRecurrentCell {
    let units: Int
    /// [input, 4·units], [units, 4·units], 4·units: Keras's stored arrays as they are.
    let kernel: [Float], recurrentKernel: [Float], bias: [Float]
    let activation: Activation, recurrentActivation: Activation

    var stateCount: Int { 2 }

    func step(_ x: ArraySlice<Float>, state: inout [[Float]]) {
        let (h, c) = (state[0], state[1])
        let fromInput = ReferenceMath.vectorTimesMatrix(x, kernel, columns: 4 * units, bias: bias[...])
        let fromState = ReferenceMath.vectorTimesMatrix(h[...], recurrentKernel, columns: 4 * units)
        let z = zip(fromInput, fromState).map { $0 + $1 }
        let i = ReferenceMath.activate(recurrentActivation, ReferenceMath.gate(z, 0, units: units))
        let f = ReferenceMath.activate(recurrentActivation, ReferenceMath.gate(z, 1, units: units))
        let g = ReferenceMath.activate(activation, ReferenceMath.gate(z, 2, units: units))
        let o = ReferenceMath.activate(recurrentActivation, ReferenceMath.gate(z, 3, units: units))
        let newCell = (0..<units).map { f[$0] * c[$0] + i[$0] * g[$0] }
        let activatedCell = ReferenceMath.activate(activation, newCell)
        state[0] = (0..<units).map { o[$0] * activatedCell[$0] }
        state[1] = newCell
    }
}
