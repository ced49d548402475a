import HeadsUpKernels

/// A recurrent layer as Bidirectional sees it, fast or reference.
protocol SequenceLayer: InferenceLayer {
    var units: Int { get }
    var steps: Int { get }
    var returnSequences: Bool { get }
}

/// `Bidirectional(rnn)`: a forward and a backward copy of a recurrent
/// layer. The backward copy's sequence output is put back in time order
/// before merging, as Keras does.
struct BidirectionalLayer: InferenceLayer {
    enum Merge: String, Sendable { case concat, sum, mul, ave }

    let name: String
    let className = "Bidirectional"
    let forwardLayer: any SequenceLayer
    let backwardLayer: any SequenceLayer
    let merge: Merge
    let outputShape: [Int]
    var parameterCount: Int { forwardLayer.parameterCount + backwardLayer.parameterCount }
    var details: String { "\(forwardLayer.className), merge \(merge.rawValue)" }

    init(name: String, forward: any SequenceLayer, backward: any SequenceLayer, merge: Merge) {
        self.name = name
        forwardLayer = forward
        backwardLayer = backward
        self.merge = merge
        var shape = forward.outputShape
        if merge == .concat { shape[shape.count - 1] += backward.outputShape.last! }
        outputShape = shape
    }

    func forward(_ input: Tensor) -> Tensor {
        let forwardOutput = forwardLayer.forward(input)
        var backwardOutput = backwardLayer.forward(input)
        let width = forwardLayer.units
        let backwardWidth = backwardLayer.units
        let steps = forwardLayer.returnSequences ? forwardLayer.steps : 1
        if backwardLayer.returnSequences {
            // Back to time order: output step s of the backward pass is input time T-1-s.
            var reversed = backwardOutput.values
            for example in 0..<input.batchSize {
                for step in 0..<steps {
                    let from = (example * steps + step) * backwardWidth
                    let to = (example * steps + steps - 1 - step) * backwardWidth
                    reversed[to..<(to + backwardWidth)] = backwardOutput.values[from..<(from + backwardWidth)]
                }
            }
            backwardOutput.values = reversed
        }
        let rows = input.batchSize * steps
        var output: [Float]
        switch merge {
        case .concat:
            output = []
            output.reserveCapacity(rows * (width + backwardWidth))
            for row in 0..<rows {
                output += forwardOutput.values[(row * width)..<((row + 1) * width)]
                output += backwardOutput.values[(row * backwardWidth)..<((row + 1) * backwardWidth)]
            }
        case .sum: output = zip(forwardOutput.values, backwardOutput.values).map { $0 + $1 }
        case .mul: output = zip(forwardOutput.values, backwardOutput.values).map { $0 * $1 }
        case .ave: output = zip(forwardOutput.values, backwardOutput.values).map { ($0 + $1) / 2 }
        }
        return Tensor(batch: input.batchSize, exampleShape: outputShape, values: output)
    }
}
