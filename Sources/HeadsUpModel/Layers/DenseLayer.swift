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
    var details: String { activation.description }

    init(name: String, inputShape: [Int], units: Int, kernel: [Float], bias: [Float]?, activation: Activation) {
        self.name = name
        inputWidth = inputShape.last!
        self.units = units
        outputShape = inputShape.dropLast() + [units]
        self.kernel = PackedMatrix(rows: inputWidth, columns: units, rowMajor: kernel)
        self.bias = paddedBias(bias, columns: units)
        self.activation = activation
        parameterCount = inputWidth * units + (bias == nil ? 0 : units)
    }

    func forward(_ input: Tensor) -> Tensor {
        let rows = input.values.count / inputWidth
        let stride = kernel.stride
        var padded = [Float](repeating: 0, count: rows * stride)
        input.values.withUnsafeBufferPointer { x in
            kernel.values.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    padded.withUnsafeMutableBufferPointer { y in
                        MatrixMultiply.multiply(
                            x.baseAddress!, lda: inputWidth, rows: rows, w.baseAddress!, wRows: inputWidth, wStride: stride,
                            into: y.baseAddress!, ldc: stride, start: .bias(b.baseAddress!))
                    }
                }
            }
        }
        var output: [Float]
        if stride == units {
            output = padded
        } else {
            output = [Float](repeating: 0, count: rows * units)
            for row in 0..<rows {
                for column in 0..<units { output[row * units + column] = padded[row * stride + column] }
            }
        }
        output.withUnsafeMutableBufferPointer { activation.apply($0.baseAddress!, count: $0.count, lastAxis: units) }
        return Tensor(shape: [input.batchSize] + outputShape, values: output)
    }
}
