import HeadsUpKernels

/// `Conv1D` over [batch, time, channels] (channels_last), with Keras's
/// valid / same / causal padding, strides and dilation. Each output step is
/// one matrix row: its receptive field times the kernel. Without dilation
/// the field of step t is contiguous in the zero-padded input (taps × channels
/// floats from step t·stride), so the product reads the padded input in
/// place, rows `stride · channels` apart; a dilated field is gathered into
/// scratch rows first (im2col).
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
        let rows = batch * outputSteps
        let output = [Float](unsafeUninitializedCapacity: rows * filters) { values, initialized in
            input.values.withUnsafeBufferPointer { x in
                if dilation == 1 {
                    convolveContiguous(x.baseAddress!, batch: batch, into: values.baseAddress!, scratch: scratch)
                } else {
                    convolveGathered(x.baseAddress!, batch: batch, into: values.baseAddress!, scratch: scratch)
                }
            }
            activation.apply(values.baseAddress!, count: rows * filters, lastAxis: filters)
            initialized = rows * filters
        }
        return Tensor(batch: batch, exampleShape: outputShape, values: output)
    }

    /// The examples' inputs back to back, each between zero steps (a block
    /// of `blockSteps`), and one product over every row start in them: the
    /// rows whose field straddles two examples are computed and dropped
    /// (4 of 54 for a window of 50 and a kernel of 5), which costs less than
    /// a product per example with its leftover rows. A single example whose
    /// filters fill whole vectors is written straight into `output`.
    private func convolveContiguous(_ x: UnsafePointer<Float>, batch: Int, into output: UnsafeMutablePointer<Float>, scratch: Scratch) {
        let padAfter = max(0, (outputSteps - 1) * stride + kernelSize - padBefore - steps)
        // Whole strides, so every example's first row starts a block.
        let blockSteps = (padBefore + steps + padAfter + stride - 1) / stride * stride
        let rowsPerBlock = blockSteps / stride
        let columns = kernel.stride
        // The zero steps are never written: they stay zero for every example.
        let padded = scratch.zeros(batch * blockSteps * channels).pointer
        for example in 0..<batch {
            (padded + (example * blockSteps + padBefore) * channels).update(from: x + example * steps * channels, count: steps * channels)
        }
        if batch == 1, columns == filters {
            kernels.multiply(padded, lda: stride * channels, rows: outputSteps, kernel, into: output, ldc: columns, start: .bias(bias.pointer))
            return
        }
        let computedRows = batch == 0 ? 0 : (batch - 1) * rowsPerBlock + outputSteps
        let c = scratch.buffer(computedRows * columns, zeroFrom: computedRows * columns).pointer
        kernels.multiply(padded, lda: stride * channels, rows: computedRows, kernel, into: c, ldc: columns, start: .bias(bias.pointer))
        for example in 0..<batch {
            copyRows(outputSteps, from: c + example * rowsPerBlock * columns, into: output + example * outputSteps * filters)
        }
    }

    /// `rows` product rows (`kernel.stride` floats apart, padding columns
    /// included) as output rows of `filters` floats.
    private func copyRows(_ rows: Int, from c: UnsafePointer<Float>, into output: UnsafeMutablePointer<Float>) {
        let columns = kernel.stride
        if columns == filters { return output.update(from: c, count: rows * filters) }
        for row in 0..<rows { (output + row * filters).update(from: c + row * columns, count: filters) }
    }

    /// Dilated taps are not contiguous: the fields gathered into scratch
    /// rows (im2col), a batch's worth, for one product.
    private func convolveGathered(_ x: UnsafePointer<Float>, batch: Int, into output: UnsafeMutablePointer<Float>, scratch: Scratch) {
        let fieldWidth = kernelSize * channels
        let rows = batch * outputSteps
        let fields = scratch.zeros(rows * fieldWidth).pointer
        for example in 0..<batch {
            for step in 0..<outputSteps {
                let row = fields + (example * outputSteps + step) * fieldWidth
                for tap in 0..<kernelSize {
                    let time = step * stride + tap * dilation - padBefore
                    guard time >= 0, time < steps else { continue }
                    (row + tap * channels).update(from: x + (example * steps + time) * channels, count: channels)
                }
            }
        }
        let columns = kernel.stride
        let c = scratch.buffer(rows * columns, zeroFrom: rows * columns).pointer
        kernels.multiply(fields, lda: fieldWidth, rows: rows, kernel, into: c, ldc: columns, start: .bias(bias.pointer))
        copyRows(rows, from: c, into: output)
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
        let output = [Float](unsafeUninitializedCapacity: batch * outputSteps * channels) { values, initialized in
            input.values.withUnsafeBufferPointer { x in
                for example in 0..<batch {
                    for step in 0..<outputSteps {
                        let first = max(step * stride - padBefore, 0)
                        let last = min(step * stride - padBefore + poolSize, steps)
                        pool(
                            x.baseAddress! + (example * steps + first) * channels, count: last - first,
                            into: values.baseAddress! + (example * outputSteps + step) * channels)
                    }
                }
            }
            initialized = batch * outputSteps * channels
        }
        return Tensor(batch: batch, exampleShape: outputShape, values: output)
    }

    /// The max or mean of `count` consecutive steps, a vector of channels at a time.
    private func pool(_ rows: UnsafePointer<Float>, count: Int, into result: UnsafeMutablePointer<Float>) {
        if isMax {
            Self.reduce(rows, count: count, channels: channels, into: result, start: -.infinity) {
                $0.replacing(with: $1, where: $1 .> $0)
            } _: {
                Swift.max($0, $1)
            }
        } else {
            Self.reduce(rows, count: count, channels: channels, into: result, start: 0) {
                $0 + $1
            } _: {
                $0 + $1
            }
            let scale = Float(count)
            var channel = 0
            while channel + 16 <= channels {
                SIMDMemory.store(SIMDMemory.load(result + channel) / scale, result + channel)
                channel += 16
            }
            while channel < channels {
                result[channel] /= scale
                channel += 1
            }
        }
    }

    /// Folds `count` rows of `channels` into one, in step order.
    @inline(__always)
    private static func reduce(
        _ rows: UnsafePointer<Float>, count: Int, channels: Int, into result: UnsafeMutablePointer<Float>, start: Float,
        _ vector: (SIMD16<Float>, SIMD16<Float>) -> SIMD16<Float>, _ scalar: (Float, Float) -> Float
    ) {
        var channel = 0
        while channel + 16 <= channels {
            var accumulated = SIMD16<Float>(repeating: start)
            for time in 0..<count { accumulated = vector(accumulated, SIMDMemory.load(rows + time * channels + channel)) }
            SIMDMemory.store(accumulated, result + channel)
            channel += 16
        }
        while channel < channels {
            var accumulated = start
            for time in 0..<count { accumulated = scalar(accumulated, rows[time * channels + channel]) }
            result[channel] = accumulated
            channel += 1
        }
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
        guard steps > 0 else {
            return Tensor(batch: batch, exampleShape: outputShape, values: [Float](repeating: isMax ? -.infinity : .nan, count: batch * channels))
        }
        // The same reduction as a pool over every step.
        let pool = Pooling1DLayer(
            name: name, className: isMax ? "MaxPooling1D" : "AveragePooling1D", inputShape: [steps, channels],
            poolSize: steps, stride: steps, same: false)
        let pooled = pool.forward(input)
        return Tensor(batch: batch, exampleShape: outputShape, values: pooled.values)
    }
}
