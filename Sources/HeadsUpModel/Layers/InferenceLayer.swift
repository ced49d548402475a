import HeadsUpKernels

/// A layer ready to run: weights packed, shapes known. Layers work on
/// batches (`Tensor.shape[0]` examples) so one code path serves a single
/// window (batch of 1) and bulk evaluation.
package protocol InferenceLayer: Sendable {
    var name: String { get }
    var className: String { get }
    /// Output shape of one example.
    var outputShape: [Int] { get }
    var parameterCount: Int { get }
    /// Activation and options, for `headsup model inspect`.
    var details: String { get }
    func forward(_ input: Tensor) -> Tensor
    /// The same, with large working buffers taken from `scratch` (layers
    /// that need none just call ``forward(_:)``).
    func forward(_ input: Tensor, scratch: Scratch) -> Tensor
}

extension InferenceLayer {
    package var details: String { "" }
    package func forward(_ input: Tensor, scratch: Scratch) -> Tensor { forward(input) }
}

/// Hands a layer its stored arrays in order, checking each shape against
/// what the config implies.
struct WeightReader {
    let layer: KerasLayerConfig
    let file: String
    private var remaining: ArraySlice<NamedWeight>

    init(_ weights: [NamedWeight], layer: KerasLayerConfig, file: String) {
        remaining = weights[...]
        self.layer = layer
        self.file = file
    }

    mutating func take(_ role: String, shape: [Int]) throws(ModelLoadError) -> [Float] {
        guard let weight = remaining.popFirst() else {
            throw ModelLoadError(file: file, layer: layer.label, problem: .missingWeight("'\(role)' (shape \(shape))"))
        }
        // Keras 2.3.1 may store a scalar count as shape (); compare element counts for scalars.
        guard weight.shape == shape || (shape.reduce(1, *) == 1 && weight.values.count == 1) else {
            throw ModelLoadError(
                file: file, layer: layer.label, problem: .shapeMismatch(weight: "\(role) (\(weight.name))", expected: shape, found: weight.shape))
        }
        return weight.values
    }

    /// Fails when the file holds arrays the config does not account for.
    func finish(expected: Int) throws(ModelLoadError) {
        guard remaining.isEmpty else {
            throw ModelLoadError(file: file, layer: layer.label, problem: .weightCount(expected: expected, found: expected + remaining.count))
        }
    }
}
