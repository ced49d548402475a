import HeadsUpKernels

/// Layers that only move values around, or do nothing at inference.

/// Dropout, noise and regularization layers: identity outside training.
struct IdentityLayer: InferenceLayer {
    let name: String
    let className: String
    let outputShape: [Int]
    let parameterCount = 0
    func forward(_ input: Tensor) -> Tensor { input }
}

/// `Reshape` and `Flatten`: the values stay in C order, only the shape changes.
struct ReshapeLayer: InferenceLayer {
    let name: String
    let className: String
    let outputShape: [Int]
    let parameterCount = 0
    func forward(_ input: Tensor) -> Tensor {
        Tensor(batch: input.batchSize, exampleShape: outputShape, values: input.values)
    }
}

/// `Permute(dims)`: transposes the example axes (1-based in the config).
struct PermuteLayer: InferenceLayer {
    let name: String
    let className = "Permute"
    let inputShape: [Int]
    /// 0-based source axis for each output axis.
    let order: [Int]
    let outputShape: [Int]
    let parameterCount = 0
    var details: String { "dims \(order.map { $0 + 1 })" }

    init(name: String, inputShape: [Int], dims: [Int]) {
        self.name = name
        self.inputShape = inputShape
        order = dims.map { $0 - 1 }
        outputShape = order.map { inputShape[$0] }
    }

    func forward(_ input: Tensor) -> Tensor {
        let rank = inputShape.count
        var inputStrides = [Int](repeating: 1, count: rank)
        for axis in stride(from: rank - 2, through: 0, by: -1) { inputStrides[axis] = inputStrides[axis + 1] * inputShape[axis + 1] }
        let sourceStrides = order.map { inputStrides[$0] }
        let perExample = input.exampleCount
        var output = [Float](repeating: 0, count: input.values.count)
        var index = [Int](repeating: 0, count: rank)
        for example in 0..<input.batchSize {
            let base = example * perExample
            for position in 0..<perExample {
                var source = base
                for axis in 0..<rank { source += index[axis] * sourceStrides[axis] }
                output[base + position] = input.values[source]
                var axis = rank - 1
                while axis >= 0 {
                    index[axis] += 1
                    if index[axis] < outputShape[axis] { break }
                    index[axis] = 0
                    axis -= 1
                }
            }
        }
        return Tensor(batch: input.batchSize, exampleShape: outputShape, values: output)
    }
}

/// `Activation(…)` as a layer of its own.
struct ActivationLayer: InferenceLayer {
    let name: String
    let className = "Activation"
    let outputShape: [Int]
    let activation: Activation
    let parameterCount = 0
    var details: String { activation.description }

    func forward(_ input: Tensor) -> Tensor {
        var output = input
        let lastAxis = outputShape.last ?? 1
        output.values.withUnsafeMutableBufferPointer { activation.apply($0.baseAddress!, count: $0.count, lastAxis: lastAxis) }
        return output
    }
}

/// `TimeDistributed(layer)`: the inner layer applied to every time step.
struct TimeDistributedLayer: InferenceLayer {
    let name: String
    let className = "TimeDistributed"
    let inner: any InferenceLayer
    let steps: Int
    let outputShape: [Int]
    var parameterCount: Int { inner.parameterCount }
    var details: String { "\(inner.className) \(inner.details)" }

    func forward(_ input: Tensor) -> Tensor {
        let stepShape = Array(input.exampleShape.dropFirst())
        let folded = Tensor(batch: input.batchSize * steps, exampleShape: stepShape, values: input.values)
        let result = inner.forward(folded)
        return Tensor(batch: input.batchSize, exampleShape: [steps] + result.exampleShape, values: result.values)
    }
}
