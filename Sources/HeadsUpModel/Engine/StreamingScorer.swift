import HeadsUpKernels

/// Why a model cannot be scored one time step at a time.
public struct StreamingUnsupportedError: Error, CustomStringConvertible {
    public var description: String
}

/// Scores a sequence one time step at a time, keeping every recurrent
/// layer's state: the stateful counterpart of ``KerasModel/predict(_:)``
/// for a live stream, where each new sample costs one step instead of a
/// whole window.
///
/// Supports models of the form [per-step layers] → forward recurrent layers
/// (each but the last returning sequences) → [layers on the final output].
/// After the steps of a window, ``output()`` equals `predict` on that window
/// fed in time-major order.
public final class StreamingScorer {
    public let model: KerasModel
    private let stepLayers: [any InferenceLayer]
    private let recurrentLayers: [RecurrentLayer]
    private let headLayers: [any InferenceLayer]
    private var states: [RecurrentState]
    private var lastOutput: [Float]
    public private(set) var stepsSeen = 0
    /// Values one step takes.
    public let stepWidth: Int

    public init(model: KerasModel) throws(StreamingUnsupportedError) {
        self.model = model
        var layers = model.layers[...]
        var shape = model.inputShape
        // A leading Reshape only regroups a flat input into [time, features].
        while let first = layers.first, first is ReshapeLayer || first is IdentityLayer {
            shape = first.outputShape
            layers = layers.dropFirst()
        }
        guard shape.count == 2 else {
            throw StreamingUnsupportedError(description: "the input is not a [time, features] sequence (shape \(shape))")
        }
        var steps: [any InferenceLayer] = []
        while let first = layers.first, !(first is RecurrentLayer) {
            guard
                first is AffineFeatureLayer || first is IdentityLayer || first is ActivationLayer || first is TimeDistributedLayer
                    || (first as? DenseLayer)?.outputShape.count == 2
            else {
                throw StreamingUnsupportedError(description: "layer '\(first.name)' (\(first.className)) does not work step by step")
            }
            steps.append(first)
            layers = layers.dropFirst()
        }
        var recurrent: [RecurrentLayer] = []
        while true {
            // Dropout and its kind between recurrent layers do nothing at inference.
            while let first = layers.first, first is IdentityLayer, !recurrent.isEmpty { layers = layers.dropFirst() }
            guard let layer = layers.first as? RecurrentLayer else { break }
            guard !layer.goBackwards else {
                throw StreamingUnsupportedError(description: "layer '\(layer.name)' runs backwards in time; it needs the whole window")
            }
            recurrent.append(layer)
            layers = layers.dropFirst()
            if !layer.returnSequences { break }
        }
        guard let last = recurrent.last, !last.returnSequences else {
            throw StreamingUnsupportedError(description: "the model has no recurrent layer whose final output feeds the rest")
        }
        for layer in layers where layer is RecurrentLayer || layer is BidirectionalLayer {
            throw StreamingUnsupportedError(description: "layer '\(layer.name)' (\(layer.className)) follows the final recurrent output")
        }
        stepLayers = steps
        recurrentLayers = recurrent
        headLayers = Array(layers)
        states = recurrent.map { $0.makeState() }
        lastOutput = [Float](repeating: 0, count: last.units)
        stepWidth = shape[1]
    }

    /// Forgets everything: the next step starts a new sequence.
    public func reset() {
        states = recurrentLayers.map { $0.makeState() }
        stepsSeen = 0
    }

    /// Feeds one time step of `stepWidth` values.
    public func step(_ values: [Float]) {
        precondition(values.count == stepWidth, "a step takes \(stepWidth) values")
        var x = Tensor(shape: [1, 1, values.count], values: values)
        for layer in stepLayers { x = layer.forward(x) }
        var current = x.values
        for (index, layer) in recurrentLayers.enumerated() {
            current = current.withUnsafeBufferPointer { layer.step($0.baseAddress!, state: states[index]) }
        }
        lastOutput = current
        stepsSeen += 1
    }

    /// The model's output as if the sequence ended at the last step.
    public func output() -> [Float] {
        var x = Tensor(shape: [1, lastOutput.count], values: lastOutput)
        for layer in headLayers { x = layer.forward(x) }
        return x.values
    }
}
