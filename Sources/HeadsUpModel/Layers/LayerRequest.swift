import HeadsUpKernels

/// What one builder is handed: the layer's config, input shape and stored
/// weights, and the checks every builder makes, each error naming the layer.
struct LayerRequest {
    let layer: KerasLayerConfig
    let inputShape: [Int]
    let weights: [NamedWeight]
    let context: LayerFactory.Context
    var reader: WeightReader

    init(layer: KerasLayerConfig, inputShape: [Int], weights: [NamedWeight], context: LayerFactory.Context) {
        (self.layer, self.inputShape, self.weights, self.context) = (layer, inputShape, weights, context)
        reader = WeightReader(weights, layer: layer, file: context.file)
    }

    var config: JSONValue { layer.config }

    func fail(_ problem: ModelLoadError.Problem) -> ModelLoadError {
        ModelLoadError(file: context.file, layer: layer.label, problem: problem)
    }

    func requireRank(_ rank: Int) throws(ModelLoadError) {
        guard inputShape.count == rank else {
            throw fail(.unsupportedOption("an input of shape \(inputShape) (expected rank \(rank) per example)"))
        }
    }

    func requireChannelsLast() throws(ModelLoadError) {
        if let format = config["data_format"]?.string, format != "channels_last" {
            throw fail(.unsupportedOption("\(layer.className) with data_format \(format)"))
        }
    }

    /// Normalizing layers: only over the last axis.
    func requireLastAxis() throws(ModelLoadError) {
        guard let axis = config["axis"], !axis.isNull else { return }
        let axes = axis.ints ?? []
        guard axes == [-1] || axes == [inputShape.count] else {
            throw fail(.unsupportedOption("normalizing over axis \(axes) (only the last axis)"))
        }
    }

    func int(_ key: String, default value: Int? = nil) throws(ModelLoadError) -> Int {
        try LayerFactory.size(key, in: config, default: value, fail: fail)
    }

    func bool(_ key: String, default value: Bool) -> Bool { config[key]?.bool ?? value }

    func activation(_ key: String, default name: String) throws(ModelLoadError) -> Activation {
        try LayerFactory.activation(config[key], default: name, layer: layer, context: context)
    }
}
