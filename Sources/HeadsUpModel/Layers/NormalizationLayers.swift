import HeadsUpKernels

/// `BatchNormalization` at inference and Keras's `Normalization`
/// preprocessing layer: both are y = x·scale + shift per feature (last
/// axis), with scale and shift folded at load time.
struct AffineFeatureLayer: InferenceLayer {
    let name: String
    let className: String
    let outputShape: [Int]
    let scale: [Float]
    let shift: [Float]
    let parameterCount: Int
    let details: String
    /// Normalization divides as Keras does, (x − shift) / scale, for the last ulp.
    var divides = false

    func forward(_ input: Tensor) -> Tensor {
        var output = input
        let features = scale.count
        output.values.withUnsafeMutableBufferPointer { values in
            var index = 0
            while index < values.count {
                if divides {
                    for feature in 0..<features { values[index + feature] = (values[index + feature] - shift[feature]) / scale[feature] }
                } else {
                    for feature in 0..<features { values[index + feature] = values[index + feature] * scale[feature] + shift[feature] }
                }
                index += features
            }
        }
        return output
    }
}

extension AffineFeatureLayer {
    /// BatchNormalization: (x − mean) / √(var + ε) · γ + β, computed as Keras does.
    static func batchNormalization(
        name: String, shape: [Int], gamma: [Float]?, beta: [Float]?, mean: [Float], variance: [Float], epsilon: Float
    ) -> AffineFeatureLayer {
        let count = mean.count
        var scale = [Float](repeating: 1, count: count)
        var shift = [Float](repeating: 0, count: count)
        for i in 0..<count {
            let inverse = 1 / (variance[i] + epsilon).squareRoot()
            scale[i] = inverse * (gamma?[i] ?? 1)
            shift[i] = (beta?[i] ?? 0) - mean[i] * scale[i]
        }
        let parameters = 2 * count + (gamma == nil ? 0 : count) + (beta == nil ? 0 : count)
        return AffineFeatureLayer(
            name: name, className: "BatchNormalization", outputShape: shape, scale: scale, shift: shift,
            parameterCount: parameters, details: "ε \(epsilon)" + (gamma == nil ? ", no scale" : "") + (beta == nil ? ", no center" : ""))
    }

    /// Normalization: (x − mean) / max(√variance, 1e-7), or its inverse.
    static func normalization(name: String, shape: [Int], mean: [Float], variance: [Float], invert: Bool) -> AffineFeatureLayer {
        let count = mean.count
        var scale = [Float](repeating: 1, count: count)
        var shift = [Float](repeating: 0, count: count)
        for i in 0..<count {
            let deviation = max(variance[i].squareRoot(), 1e-7)
            scale[i] = deviation
            shift[i] = mean[i]
        }
        return AffineFeatureLayer(
            name: name, className: "Normalization", outputShape: shape, scale: scale, shift: shift,
            parameterCount: 2 * count + 1, details: invert ? "invert" : "", divides: !invert)
    }
}
