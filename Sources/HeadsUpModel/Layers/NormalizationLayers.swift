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
        output.values.withUnsafeMutableBufferPointer { buffer in
            guard let values = buffer.baseAddress, features > 0 else { return }
            scale.withUnsafeBufferPointer { scale in
                shift.withUnsafeBufferPointer { shift in
                    let (scale, shift) = (scale.baseAddress!, shift.baseAddress!)
                    if divides {
                        Self.transform(values, count: buffer.count, features: features, scale, shift) { x, a, b in
                            (x - b) / a
                        } _: { x, a, b in
                            (x - b) / a
                        }
                    } else {
                        Self.transform(values, count: buffer.count, features: features, scale, shift) { x, a, b in
                            x * a + b
                        } _: { x, a, b in
                            x * a + b
                        }
                    }
                }
            }
        }
        return output
    }

    /// `vector` on whole vectors of each row's features (BatchNormalization
    /// after 32 or 64 filters), `scalar` on the rest; one closure per case so
    /// the loop carries no branch.
    @inline(__always)
    private static func transform(
        _ values: UnsafeMutablePointer<Float>, count: Int, features: Int, _ scale: UnsafePointer<Float>, _ shift: UnsafePointer<Float>,
        _ vector: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) -> SIMD16<Float>, _ scalar: (Float, Float, Float) -> Float
    ) {
        var row = values
        let end = values + count
        while row < end {
            var feature = 0
            while feature + 16 <= features {
                SIMDMemory.store(
                    vector(SIMDMemory.load(row + feature), SIMDMemory.load(scale + feature), SIMDMemory.load(shift + feature)), row + feature)
                feature += 16
            }
            while feature < features {
                row[feature] = scalar(row[feature], scale[feature], shift[feature])
                feature += 1
            }
            row += features
        }
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
