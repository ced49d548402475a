import HeadsUpKernels

/// Conv1D as Keras defines it (channels_last):
///
///     y[t, f] = act(b[f] + Σ_k Σ_c x[t·stride + k·dilation − padBefore, c] · W[k, c, f])
///
/// with x zero outside the sequence; padBefore is 0 for "valid", half the
/// excess (rounded down) for "same", and the whole span − 1 for "causal".
struct ReferenceConv1DLayer: InferenceLayer {
    let name: String
    let className = "Conv1D"
    let steps: Int, channels: Int, filters: Int
    let kernelSize: Int, stride: Int, dilation: Int
    let geometry: Conv1DGeometry
    var outputSteps: Int { geometry.outputSteps }
    var padBefore: Int { geometry.padBefore }
    /// [kernelSize, channels, filters] and filters, as stored.
    let kernel: [Float]
    let bias: [Float]
    let activation: Activation
    var outputShape: [Int] { [outputSteps, filters] }
    var parameterCount: Int { kernel.count + bias.count }
    var details: String { "reference, \(activation)" }

    func forward(_ input: Tensor) -> Tensor {
        var output: [Float] = []
        for example in 0..<input.batchSize {
            for t in 0..<outputSteps {
                var y = bias.isEmpty ? [Float](repeating: 0, count: filters) : bias
                for k in 0..<kernelSize {
                    let time = t * stride + k * dilation - padBefore
                    guard time >= 0, time < steps else { continue }
                    for c in 0..<channels {
                        let x = input.values[(example * steps + time) * channels + c]
                        for f in 0..<filters { y[f] += x * kernel[(k * channels + c) * filters + f] }
                    }
                }
                output += ReferenceMath.activate(activation, y)
            }
        }
        return Tensor(batch: input.batchSize, exampleShape: outputShape, values: output)
    }
}

/// Where a Conv1D's output steps fall: how many there are and how many
/// zeros precede the sequence. Keras's rules; the fast layer uses them too.
struct Conv1DGeometry: Sendable, Equatable {
    enum Padding: String, Sendable { case valid, same, causal }

    let outputSteps: Int
    let padBefore: Int

    init(steps: Int, kernelSize: Int, stride: Int, dilation: Int, padding: Padding) {
        let span = (kernelSize - 1) * dilation + 1
        switch padding {
        case .valid:
            outputSteps = steps >= span ? (steps - span) / stride + 1 : 0
            padBefore = 0
        case .same:
            outputSteps = (steps + stride - 1) / stride
            padBefore = max((outputSteps - 1) * stride + span - steps, 0) / 2
        case .causal:
            outputSteps = (steps + stride - 1) / stride
            padBefore = span - 1
        }
    }
}
