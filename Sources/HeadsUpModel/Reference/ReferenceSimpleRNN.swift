import HeadsUpKernels

/// One SimpleRNN step as Keras defines it: h' = act(x·W + h·U + b).
struct ReferenceSimpleRNNCell: ReferenceRecurrentCell {
    let units: Int
    /// [input, units], [units, units], units.
    let kernel: [Float], recurrentKernel: [Float], bias: [Float]
    let activation: Activation

    var stateCount: Int { 1 }

    func step(_ x: ArraySlice<Float>, state: inout [[Float]]) {
        let fromInput = ReferenceMath.vectorTimesMatrix(x, kernel, columns: units, bias: bias[...])
        let fromState = ReferenceMath.vectorTimesMatrix(state[0][...], recurrentKernel, columns: units)
        state[0] = ReferenceMath.activate(activation, zip(fromInput, fromState).map { $0 + $1 })
    }
}
