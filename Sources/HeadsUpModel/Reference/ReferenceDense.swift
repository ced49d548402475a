import HeadsUpKernels

/// Dense as Keras defines it: y = act(x·W + b) over the last axis.
struct ReferenceDenseLayer: InferenceLayer {
    let name: String
    let className = "Dense"
    let inputWidth: Int
    let units: Int
    /// [input, units] and units, as stored.
    let kernel: [Float]
    let bias: [Float]
    let activation: Activation
    let outputShape: [Int]
    var parameterCount: Int { kernel.count + bias.count }
    var details: String { "reference, \(activation)" }

    func forward(_ input: Tensor) -> Tensor {
        var output: [Float] = []
        for row in 0..<(input.values.count / inputWidth) {
            let x = input.values[(row * inputWidth)..<((row + 1) * inputWidth)]
            let y = ReferenceMath.vectorTimesMatrix(x, kernel, columns: units, bias: bias.isEmpty ? nil : bias[...])
            output += ReferenceMath.activate(activation, y)
        }
        return Tensor(batch: input.batchSize, exampleShape: outputShape, values: output)
    }
}
