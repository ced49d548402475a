/// `Conv1D` over [batch, time, channels] (channels_last), with Keras's
/// valid / same / causal padding, strides and dilation. Each output step is
/// one matrix row: the receptive field's inputs times the kernel.
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
    let bias: [Float]
    let activation: Activation
    let outputSteps: Int
    let padBefore: Int
    let outputShape: [Int]
    let parameterCount: Int
    var details: String { "\(activation), \(padding.rawValue), kernel \(kernelSize), stride \(stride), dilation \(dilation)" }

    init(
        name: String, inputShape: [Int], filters: Int, kernelSize: Int, stride: Int, dilation: Int, padding: Padding,
        kernel: [Float], bias: [Float]?, activation: Activation
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
        self.bias = paddedBias(bias, columns: filters)
        outputShape = [outputSteps, filters]
        parameterCount = kernelSize * channels * filters + (bias == nil ? 0 : filters)
    }

    func forward(_ input: Tensor) -> Tensor {
        let batch = input.batchSize
        let fieldWidth = kernelSize * channels
        // im2col: one row per output step holding its receptive field (zeros where padded).
        var fields = [Float](repeating: 0, count: batch * outputSteps * fieldWidth)
        for example in 0..<batch {
            for step in 0..<outputSteps {
                let row = (example * outputSteps + step) * fieldWidth
                for tap in 0..<kernelSize {
                    let time = step * stride + tap * dilation - padBefore
                    guard time >= 0, time < steps else { continue }
                    let source = (example * steps + time) * channels
                    for channel in 0..<channels { fields[row + tap * channels + channel] = input.values[source + channel] }
                }
            }
        }
        let dense = DenseLayer(from: self)
        let result = dense.forward(Tensor(shape: [batch * outputSteps, fieldWidth], values: fields))
        return Tensor(batch: batch, exampleShape: outputShape, values: result.values)
    }
}

extension DenseLayer {
    /// A convolution's kernel as a dense layer over receptive fields.
    init(from convolution: Conv1DLayer) {
        name = convolution.name
        inputWidth = convolution.kernelSize * convolution.channels
        units = convolution.filters
        outputShape = [convolution.filters]
        kernel = convolution.kernel
        bias = convolution.bias
        activation = convolution.activation
        parameterCount = convolution.parameterCount
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
