/// A recurrent cell's step: `state[0]` is h (the output), LSTM keeps c in `state[1]`.
protocol ReferenceRecurrentCell: Sendable {
    var units: Int { get }
    var stateCount: Int { get }
    func step(_ x: ArraySlice<Float>, state: inout [[Float]])
}

/// A recurrent layer over [batch, time, features], one example and one step
/// at a time, as Keras runs it: states start at zero; with `goBackwards`
/// the steps run from the last to the first and a returned sequence stays
/// in that reversed order.
struct ReferenceRecurrentLayer: SequenceLayer {
    let name: String
    let className: String
    let cell: any ReferenceRecurrentCell
    let steps: Int
    let inputWidth: Int
    let returnSequences: Bool
    let goBackwards: Bool
    let parameterCount: Int
    var units: Int { cell.units }
    var outputShape: [Int] { returnSequences ? [steps, units] : [units] }
    var details: String { "reference" + (returnSequences ? ", return_sequences" : "") + (goBackwards ? ", go_backwards" : "") }

    func forward(_ input: Tensor) -> Tensor {
        var output: [Float] = []
        for example in 0..<input.batchSize {
            var state = [[Float]](repeating: [Float](repeating: 0, count: units), count: cell.stateCount)
            for step in 0..<steps {
                let time = goBackwards ? steps - 1 - step : step
                let start = (example * steps + time) * inputWidth
                cell.step(input.values[start..<(start + inputWidth)], state: &state)
                if returnSequences { output += state[0] }
            }
            if !returnSequences { output += state[0] }
        }
        return Tensor(batch: input.batchSize, exampleShape: outputShape, values: output)
    }
}
