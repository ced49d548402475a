import HeadsUpKernels

/// `Dense`: y = activation(x·W + b) over the last axis (so it also applies
/// per time step on sequences, which is what `TimeDistributed(Dense)` means).
struct DenseLayer: InferenceLayer {
    let name: String
    let className = "Dense"
    let outputShape: [Int]
    let inputWidth: Int
    let units: Int
    let kernel: PackedMatrix
    let bias: [Float]
    let activation: Activation
    let parameterCount: Int
    let kernels: KernelTable
    var details: String { activation.description }

    init(name: String, inputShape: [Int], units: Int, kernel: [Float], bias: [Float]?, activation: Activation, kernels: KernelTable) {
        self.name = name
        inputWidth = inputShape.last!
        self.units = units
        outputShape = inputShape.dropLast() + [units]
        self.kernel = PackedMatrix(rows: inputWidth, columns: units, rowMajor: kernel)
        self.bias = paddedBias(bias, columns: units)
        self.activation = activation
        parameterCount = inputWidth * units + (bias == nil ? 0 : units)
        self.kernels = kernels
    }

    func forward(_ input: Tensor) -> Tensor {
        forward(input, scratch: Scratch())
    }

    func forward(_ input: Tensor, scratch: Scratch) -> Tensor {
        let rows = input.values.count / inputWidth
        let stride = kernel.stride
        // The kernel writes whole padded rows; the output keeps the first `units` of each.
        let padded = scratch.buffer(rows * stride, zeroFrom: rows * stride)
        input.values.withUnsafeBufferPointer { x in
            bias.withUnsafeBufferPointer { b in
                kernels.multiply(x.baseAddress!, lda: inputWidth, rows: rows, kernel, into: padded.pointer, ldc: stride, start: .bias(b.baseAddress!))
            }
        }
        let output = [Float](unsafeUninitializedCapacity: rows * units) { values, initialized in
            for row in 0..<rows {
                (values.baseAddress! + row * units).initialize(from: padded.pointer + row * stride, count: units)
            }
            activation.apply(values.baseAddress!, count: rows * units, lastAxis: units)
            initialized = rows * units
        }
        return Tensor(batch: input.batchSize, exampleShape: outputShape, values: output)
    }
}
