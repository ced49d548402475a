import HeadsUpKernels

/// Builds a runnable layer from its Keras config, its input shape and its
/// stored weights, checking every option and shape on the way: a table from
/// Keras class name to builder, the one list of the layers HeadsUp runs.
enum LayerFactory {
    typealias Builder = @Sendable (inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer

    struct Context {
        let file: String
        let kerasMajorVersion: Int
        var engine: KerasModelLoader.Engine = .fast
        /// The fast layers' kernels (the CPU level chosen at load).
        var kernels: KernelTable
    }

    /// Layers that only matter in training: they pass their input on.
    static let identityClassNames = [
        "Dropout", "SpatialDropout1D", "GaussianNoise", "GaussianDropout", "AlphaDropout", "ActivityRegularization",
    ]

    static let builders: [String: Builder] =
        Dictionary(uniqueKeysWithValues: identityClassNames.map { ($0, identity) })
        .merging(
            [
                "Dense": dense, "Activation": activation, "Reshape": reshape, "Flatten": flatten, "Permute": permute,
                "LSTM": recurrent, "GRU": recurrent, "SimpleRNN": recurrent, "Bidirectional": bidirectional,
                "TimeDistributed": timeDistributed, "Conv1D": conv1D, "MaxPooling1D": pooling, "AveragePooling1D": pooling,
                "GlobalAveragePooling1D": globalPooling, "GlobalMaxPooling1D": globalPooling,
                "BatchNormalization": batchNormalization, "Normalization": normalization,
            ], uniquingKeysWith: { first, _ in first })

    /// Every class name a model may hold (an InputLayer is read as the model's input, not built).
    static var supportedClassNames: [String] { ["InputLayer"] + builders.keys.sorted() }

    static func make(
        _ layer: KerasLayerConfig, inputShape: [Int], weights: [NamedWeight], context: Context
    ) throws(ModelLoadError) -> any InferenceLayer {
        var request = LayerRequest(layer: layer, inputShape: inputShape, weights: weights, context: context)
        guard let build = builders[layer.className] else { throw request.fail(.unsupportedLayer(layer.className)) }
        return try build(&request)
    }

    /// The largest layer size accepted: far above any model HeadsUp runs, far below what fails to allocate.
    static let largestSize = 1 << 24

    /// A size in a layer's config (units, filters, kernel_size, …): a whole
    /// number from 1 to ``largestSize``, or a list whose first item is one. A missing key
    /// takes `default` when there is one; a wrong type or an absurd value is
    /// named as such, not as missing.
    static func size(
        _ key: String, in config: JSONValue, default value: Int? = nil, fail: (ModelLoadError.Problem) -> ModelLoadError
    ) throws(ModelLoadError) -> Int {
        guard let raw = config[key], !raw.isNull else {
            if let value { return value }
            throw fail(.badConfig("'\(key)' is missing"))
        }
        guard let found = raw.ints?.first, (1...largestSize).contains(found) else {
            throw fail(.badConfig("'\(key)' must be a whole number from 1 to \(largestSize)"))
        }
        return found
    }

    /// An activation named in a config: a string, or Keras 3's serialized
    /// function {"class_name": "function", "config": "relu"}; `nil` or null is the default.
    static func activation(_ value: JSONValue?, default name: String, layer: KerasLayerConfig, context: Context) throws(ModelLoadError) -> Activation
    {
        let activationName = value?.string ?? value?["config"]?.string ?? name
        guard let result = Activation(kerasName: activationName, kerasMajorVersion: context.kerasMajorVersion) else {
            throw ModelLoadError(file: context.file, layer: layer.label, problem: .unsupportedActivation(activationName))
        }
        return result
    }
}
