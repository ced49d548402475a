import HeadsUpKernels

/// `Conv1D` over [batch, time, channels] (channels_last), with Keras's
/// valid / same / causal padding, strides and dilation. Each output step is
/// one matrix row: the receptive field's inputs (gathered into scratch
/// rows, im2col) times the kernel, one product for the whole batch.
struct Conv1DLayer: InferenceLayer {
    typealias Padding = Conv1DGeometry.Padding

    let name: String
    let className = "Conv1D"
    let steps: Int
    let channels: Int
    let filters: Int
    let kernelSize: Int
    let stride: Int
    let dilation: Int
    let padding: Padding
    let kernel: PackedMatrix
    let bias: AlignedFloats
    let activation: Activation
    let kernels: KernelTable
    let outputSteps: Int
    let padBefore: Int
    let outputShape: [Int]
    let parameterCount: Int
    var details: String { "\(activation), \(padding.rawValue), kernel \(kernelSize), stride \(stride), dilation \(dilation)" }

    init(
        name: String, inputShape: [Int], filters: Int, kernelSize: Int, stride: Int, dilation: Int, padding: Padding,
        kernel: [Float], bias: [Float]?, activation: Activation, kernels: KernelTable
    ) {
        self.name = name
        steps = inputShape[0]
        channels = inputShape[1]
        self.filters = filters
        self.kernelSize = kernelSize
        self.stride = stride
        self.dilation = dilation
        self.padding = padding
        self.activation = activation
        let geometry = Conv1DGeometry(steps: steps, kernelSize: kernelSize, stride: stride, dilation: dilation, padding: padding)
        outputSteps = geometry.outputSteps
        padBefore = geometry.padBefore
        // Kernel [k, channels, filters] is already [k·channels, filters] row-major.
        self.kernel = PackedMatrix(rows: kernelSize * channels, columns: filters, rowMajor: kernel)
        self.bias = AlignedFloats(paddedBias(bias, columns: filters))
        self.kernels = kernels
        outputShape = [outputSteps, filters]
        parameterCount = kernelSize * channels * filters + (bias == nil ? 0 : filters)
    }

    func forward(_ input: Tensor) -> Tensor {
        forward(input, scratch: Scratch())
    }

    func forward(_ input: Tensor, scratch: Scratch) -> Tensor {
        let batch = input.batchSize
        let fieldWidth = kernelSize * channels
        let rows = batch * outputSteps
        // im2col: one row per output step holding its receptive field (zeros where padded).
        let fields = scratch.zeros(rows * fieldWidth).pointer
        input.values.withUnsafeBufferPointer { x in
            for example in 0..<batch {
                for step in 0..<outputSteps {
                    let row = fields + (example * outputSteps + step) * fieldWidth
                    for tap in 0..<kernelSize {
                        let time = step * stride + tap * dilation - padBefore
                        guard time >= 0, time < steps else { continue }
                        (row + tap * channels).update(from: x.baseAddress! + (example * steps + time) * channels, count: channels)
                    }
                }
            }
        }
        let columns = kernel.stride
        let padded = scratch.buffer(rows * columns, zeroFrom: rows * columns).pointer
        kernels.multiply(fields, lda: fieldWidth, rows: rows, kernel, into: padded, ldc: columns, start: .bias(bias.pointer))
        let output = [Float](unsafeUninitializedCapacity: rows * filters) { values, initialized in
            for row in 0..<rows { (values.baseAddress! + row * filters).initialize(from: padded + row * columns, count: filters) }
            activation.apply(values.baseAddress!, count: rows * filters, lastAxis: filters)
            initialized = rows * filters
        }
        return Tensor(batch: batch, exampleShape: outputShape, values: output)
    }
}

/// `MaxPooling1D` and `AveragePooling1D` (valid or same; averages count
/// only the real, unpadded steps, as TensorFlow does).
struct Pooling1DLayer: InferenceLayer {
    let name: String
    let className: String
    let isMax: Bool
    let steps: Int
    let channels: Int
    let poolSize: Int
    let stride: Int
    let padBefore: Int
    let outputSteps: Int
    let outputShape: [Int]
    let parameterCount = 0
    var details: String { "pool \(poolSize), stride \(stride)" }

    init(name: String, className: String, inputShape: [Int], poolSize: Int, stride: Int, same: Bool) {
        self.name = name
        self.className = className
        isMax = className.hasPrefix("Max")
        steps = inputShape[0]
        channels = inputShape[1]
        self.poolSize = poolSize
        self.stride = stride
        if same {
            outputSteps = (steps + stride - 1) / stride
            padBefore = max((outputSteps - 1) * stride + poolSize - steps, 0) / 2
        } else {
            outputSteps = steps >= poolSize ? (steps - poolSize) / stride + 1 : 0
            padBefore = 0
        }
        outputShape = [outputSteps, channels]
    }

    func forward(_ input: Tensor) -> Tensor {
        let batch = input.batchSize
        var output = [Float](repeating: 0, count: batch * outputSteps * channels)
        for example in 0..<batch {
            for step in 0..<outputSteps {
                let first = max(step * stride - padBefore, 0)
                let last = min(step * stride - padBefore + poolSize, steps)
                for channel in 0..<channels {
                    var accumulated: Float = isMax ? -.infinity : 0
                    for time in first..<last {
                        let value = input.values[(example * steps + time) * channels + channel]
                        accumulated = isMax ? max(accumulated, value) : accumulated + value
                    }
                    output[(example * outputSteps + step) * channels + channel] =
                        isMax ? accumulated : accumulated / Float(last - first)
                }
            }
        }
        return Tensor(batch: batch, exampleShape: outputShape, values: output)
    }
}

/// `GlobalAveragePooling1D` / `GlobalMaxPooling1D`: over the time axis.
struct GlobalPooling1DLayer: InferenceLayer {
    let name: String
    let className: String
    let isMax: Bool
    let steps: Int
    let channels: Int
    let outputShape: [Int]
    let parameterCount = 0

    func forward(_ input: Tensor) -> Tensor {
        let batch = input.batchSize
        var output = [Float](repeating: isMax ? -.infinity : 0, count: batch * channels)
        for example in 0..<batch {
            for time in 0..<steps {
                for channel in 0..<channels {
                    let value = input.values[(example * steps + time) * channels + channel]
                    let index = example * channels + channel
                    output[index] = isMax ? max(output[index], value) : output[index] + value
                }
            }
        }
        if !isMax { for i in output.indices { output[i] /= Float(steps) } }
        return Tensor(batch: batch, exampleShape: outputShape, values: output)
    }
}
