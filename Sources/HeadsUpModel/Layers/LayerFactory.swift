import HeadsUpKernels

/// Builds a runnable layer from its Keras config, its input shape and its
/// stored weights, checking every option and shape on the way.
enum LayerFactory {
    static let supportedClassNames = [
        "InputLayer", "Dense", "Activation", "Dropout", "SpatialDropout1D", "GaussianNoise", "GaussianDropout",
        "AlphaDropout", "ActivityRegularization", "Reshape", "Flatten", "Permute", "LSTM", "GRU", "SimpleRNN",
        "Bidirectional", "TimeDistributed", "Conv1D", "MaxPooling1D", "AveragePooling1D", "GlobalAveragePooling1D",
        "GlobalMaxPooling1D", "BatchNormalization", "Normalization",
    ]
    static let identityClassNames: Set<String> = [
        "Dropout", "SpatialDropout1D", "GaussianNoise", "GaussianDropout", "AlphaDropout", "ActivityRegularization",
    ]

    struct Context {
        let file: String
        let kerasMajorVersion: Int
        var engine: KerasModelLoader.Engine = .fast
        /// The fast layers' kernels (the CPU level chosen at load).
        var kernels: KernelTable
    }

    static func make(
        _ layer: KerasLayerConfig, inputShape: [Int], weights: [NamedWeight], context: Context
    ) throws(ModelLoadError) -> any InferenceLayer {
        let config = layer.config
        func fail(_ problem: ModelLoadError.Problem) -> ModelLoadError {
            ModelLoadError(file: context.file, layer: layer.label, problem: problem)
        }
        func requireRank(_ rank: Int) throws(ModelLoadError) {
            guard inputShape.count == rank else {
                throw fail(.unsupportedOption("an input of shape \(inputShape) (expected rank \(rank) per example)"))
            }
        }
        func int(_ key: String, default value: Int? = nil) throws(ModelLoadError) -> Int {
            try LayerFactory.size(key, in: config, default: value, fail: fail)
        }
        func bool(_ key: String, default value: Bool) -> Bool { config[key]?.bool ?? value }
        func activation(_ key: String, default name: String) throws(ModelLoadError) -> Activation {
            try LayerFactory.activation(config[key], default: name, layer: layer, context: context)
        }
        var reader = WeightReader(weights, layer: layer, file: context.file)

        if identityClassNames.contains(layer.className) {
            try reader.finish(expected: 0)
            return IdentityLayer(name: layer.name, className: layer.className, outputShape: inputShape)
        }
        switch layer.className {
        case "Dense":
            let units = try int("units")
            let useBias = bool("use_bias", default: true)
            let kernel = try reader.take("kernel", shape: [inputShape.last!, units])
            let bias = useBias ? try reader.take("bias", shape: [units]) : nil
            try reader.finish(expected: useBias ? 2 : 1)
            let denseActivation = try activation("activation", default: "linear")
            if context.engine == .reference {
                return ReferenceDenseLayer(
                    name: layer.name, inputWidth: inputShape.last!, units: units, kernel: kernel, bias: bias ?? [],
                    activation: denseActivation, outputShape: inputShape.dropLast() + [units])
            }
            return DenseLayer(
                name: layer.name, inputShape: inputShape, units: units, kernel: kernel, bias: bias, activation: denseActivation,
                kernels: context.kernels)

        case "Activation":
            try reader.finish(expected: 0)
            return ActivationLayer(name: layer.name, outputShape: inputShape, activation: try activation("activation", default: "linear"))

        case "Reshape":
            guard var target = config["target_shape"]?.ints else { throw fail(.badConfig("'target_shape' is missing")) }
            let total = inputShape.reduce(1, *)
            if let unknown = target.firstIndex(of: -1) {
                target[unknown] = total / target.filter { $0 != -1 }.reduce(1, *)
            }
            guard target.reduce(1, *) == total else {
                throw fail(.badConfig("cannot reshape \(inputShape) into \(target)"))
            }
            try reader.finish(expected: 0)
            return ReshapeLayer(name: layer.name, className: "Reshape", outputShape: target)

        case "Flatten":
            if let format = config["data_format"]?.string, format == "channels_first", inputShape.count > 1 {
                throw fail(.unsupportedOption("Flatten with data_format channels_first"))
            }
            try reader.finish(expected: 0)
            return ReshapeLayer(name: layer.name, className: "Flatten", outputShape: [inputShape.reduce(1, *)])

        case "Permute":
            guard let dims = config["dims"]?.ints, dims.sorted() == Array(1...inputShape.count) else {
                throw fail(.badConfig("'dims' must be a permutation of 1…\(inputShape.count)"))
            }
            try reader.finish(expected: 0)
            return PermuteLayer(name: layer.name, inputShape: inputShape, dims: dims)

        case "LSTM", "GRU", "SimpleRNN":
            let recurrent = try makeRecurrent(layer, inputShape: inputShape, reader: &reader, context: context, invertDirection: false)
            try reader.finish(expected: recurrent.expectedWeights)
            return recurrent.layer

        case "Bidirectional":
            try requireRank(2)
            guard let inner = config["layer"].flatMap(KerasLayerConfig.init) else {
                throw fail(.badConfig("Bidirectional without an inner 'layer'"))
            }
            guard let mergeName = config["merge_mode"]?.string else {
                throw fail(.unsupportedOption("merge_mode None (two outputs; HeadsUp runs single-output chains)"))
            }
            guard let merge = BidirectionalLayer.Merge(rawValue: mergeName) else {
                throw fail(.unsupportedOption("merge_mode '\(mergeName)'"))
            }
            let backwardConfig = config["backward_layer"].flatMap(KerasLayerConfig.init)
            let forward = try makeRecurrent(inner, inputShape: inputShape, reader: &reader, context: context, invertDirection: false)
            let backward = try makeRecurrent(
                backwardConfig ?? inner, inputShape: inputShape, reader: &reader, context: context,
                invertDirection: backwardConfig == nil)
            try reader.finish(expected: forward.expectedWeights + backward.expectedWeights)
            return BidirectionalLayer(name: layer.name, forward: forward.layer, backward: backward.layer, merge: merge)

        case "TimeDistributed":
            try requireRank(2)
            guard let inner = config["layer"].flatMap(KerasLayerConfig.init) else {
                throw fail(.badConfig("TimeDistributed without an inner 'layer'"))
            }
            let innerLayer = try make(inner, inputShape: Array(inputShape.dropFirst()), weights: weights, context: context)
            return TimeDistributedLayer(
                name: layer.name, inner: innerLayer, steps: inputShape[0], outputShape: [inputShape[0]] + innerLayer.outputShape)

        case "Conv1D":
            try requireRank(2)
            if let format = config["data_format"]?.string, format != "channels_last" {
                throw fail(.unsupportedOption("Conv1D with data_format \(format)"))
            }
            if try int("groups", default: 1) != 1 { throw fail(.unsupportedOption("grouped Conv1D")) }
            let filters = try int("filters")
            let kernelSize = try int("kernel_size")
            let stride = try int("strides", default: 1)
            let dilation = try int("dilation_rate", default: 1)
            guard stride == 1 || dilation == 1 else { throw fail(.unsupportedOption("strides > 1 with dilation_rate > 1")) }
            let paddingName = config["padding"]?.string ?? "valid"
            guard let padding = Conv1DLayer.Padding(rawValue: paddingName) else {
                throw fail(.unsupportedOption("padding '\(paddingName)'"))
            }
            let useBias = bool("use_bias", default: true)
            let kernel = try reader.take("kernel", shape: [kernelSize, inputShape[1], filters])
            let bias = useBias ? try reader.take("bias", shape: [filters]) : nil
            try reader.finish(expected: useBias ? 2 : 1)
            if context.engine == .reference {
                return ReferenceConv1DLayer(
                    name: layer.name, steps: inputShape[0], channels: inputShape[1], filters: filters, kernelSize: kernelSize, stride: stride,
                    dilation: dilation,
                    geometry: Conv1DGeometry(steps: inputShape[0], kernelSize: kernelSize, stride: stride, dilation: dilation, padding: padding),
                    kernel: kernel, bias: bias ?? [], activation: try activation("activation", default: "linear"))
            }
            return Conv1DLayer(
                name: layer.name, inputShape: inputShape, filters: filters, kernelSize: kernelSize, stride: stride,
                dilation: dilation, padding: padding, kernel: kernel, bias: bias,
                activation: try activation("activation", default: "linear"), kernels: context.kernels)

        case "MaxPooling1D", "AveragePooling1D":
            try requireRank(2)
            if let format = config["data_format"]?.string, format != "channels_last" {
                throw fail(.unsupportedOption("\(layer.className) with data_format \(format)"))
            }
            let poolSize = try int("pool_size", default: 2)
            let stride = config["strides"]?.ints?.first ?? poolSize
            let paddingName = config["padding"]?.string ?? "valid"
            guard paddingName == "valid" || paddingName == "same" else {
                throw fail(.unsupportedOption("padding '\(paddingName)'"))
            }
            try reader.finish(expected: 0)
            return Pooling1DLayer(
                name: layer.name, className: layer.className, inputShape: inputShape, poolSize: poolSize, stride: stride,
                same: paddingName == "same")

        case "GlobalAveragePooling1D", "GlobalMaxPooling1D":
            try requireRank(2)
            if let format = config["data_format"]?.string, format != "channels_last" {
                throw fail(.unsupportedOption("\(layer.className) with data_format \(format)"))
            }
            let keepDims = bool("keepdims", default: false)
            try reader.finish(expected: 0)
            return GlobalPooling1DLayer(
                name: layer.name, className: layer.className, isMax: layer.className.contains("Max"),
                steps: inputShape[0], channels: inputShape[1], outputShape: keepDims ? [1, inputShape[1]] : [inputShape[1]])

        case "BatchNormalization":
            try requireLastAxis(config["axis"], rank: inputShape.count, fail: fail)
            let features = inputShape.last!
            let scale = bool("scale", default: true)
            let center = bool("center", default: true)
            let gamma = scale ? try reader.take("gamma", shape: [features]) : nil
            let beta = center ? try reader.take("beta", shape: [features]) : nil
            let mean = try reader.take("moving_mean", shape: [features])
            let variance = try reader.take("moving_variance", shape: [features])
            try reader.finish(expected: 2 + (scale ? 1 : 0) + (center ? 1 : 0))
            return AffineFeatureLayer.batchNormalization(
                name: layer.name, shape: inputShape, gamma: gamma, beta: beta, mean: mean, variance: variance,
                epsilon: Float(config["epsilon"]?.number ?? 1e-3))

        case "Normalization":
            try requireLastAxis(config["axis"], rank: inputShape.count, fail: fail)
            let features = inputShape.last!
            let mean: [Float]
            let variance: [Float]
            if weights.isEmpty, let m = config["mean"]?.array?.compactMap(\.number), let v = config["variance"]?.array?.compactMap(\.number) {
                mean = m.map(Float.init)
                variance = v.map(Float.init)
            } else {
                // Stored with broadcast shape, e.g. (1, 1, 9) in tf.keras, (9,) in Keras 3.
                let stored = weights.first?.shape ?? [features]
                guard stored.reduce(1, *) == features else {
                    throw fail(.shapeMismatch(weight: "mean", expected: [features], found: stored))
                }
                mean = try reader.take("mean", shape: stored)
                variance = try reader.take("variance", shape: stored)
                _ = try reader.take("count", shape: [])
                try reader.finish(expected: 3)
            }
            guard mean.count == features, variance.count == features else {
                throw fail(.shapeMismatch(weight: "mean", expected: [features], found: [mean.count]))
            }
            return AffineFeatureLayer.normalization(
                name: layer.name, shape: inputShape, mean: mean, variance: variance, invert: bool("invert", default: false))

        default:
            throw fail(.unsupportedLayer(layer.className))
        }
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

    private static func requireLastAxis(
        _ axis: JSONValue?, rank: Int, fail: (ModelLoadError.Problem) -> ModelLoadError
    ) throws(ModelLoadError) {
        guard let axis, !axis.isNull else { return }
        let axes = axis.ints ?? []
        guard axes == [-1] || axes == [rank] else {
            throw fail(.unsupportedOption("normalizing over axis \(axes) (only the last axis)"))
        }
    }

    /// A recurrent layer (also the halves of a Bidirectional). `invertDirection`
    /// makes the backward copy of a Bidirectional built from its forward config.
    private static func makeRecurrent(
        _ layer: KerasLayerConfig, inputShape: [Int], reader: inout WeightReader, context: Context, invertDirection: Bool
    ) throws(ModelLoadError) -> (layer: any SequenceLayer, expectedWeights: Int) {
        let config = layer.config
        func fail(_ problem: ModelLoadError.Problem) -> ModelLoadError {
            ModelLoadError(file: context.file, layer: layer.label, problem: problem)
        }
        guard inputShape.count == 2 else {
            throw fail(.unsupportedOption("an input of shape \(inputShape) (a recurrent layer needs [time, features])"))
        }
        for flag in ["return_state", "stateful", "time_major"] where config[flag]?.bool == true {
            throw fail(.unsupportedOption("\(flag)=true"))
        }
        let units = try size("units", in: config, fail: fail)
        let cell: RecurrentCell
        switch layer.className {
        case "LSTM": cell = .lstm
        case "GRU":
            // Keras 2.3 defaulted to false, tf.keras 2 and Keras 3 to true; all of them write the key.
            cell = .gru(resetAfter: config["reset_after"]?.bool ?? (context.kerasMajorVersion >= 3))
        case "SimpleRNN": cell = .simple
        default: throw fail(.unsupportedLayer(layer.className))
        }
        func activation(_ key: String, default name: String) throws(ModelLoadError) -> Activation {
            try LayerFactory.activation(config[key], default: name, layer: layer, context: context)
        }
        let width = cell.gateCount * units
        let useBias = config["use_bias"]?.bool ?? true
        let kernel = try reader.take("kernel", shape: [inputShape[1], width])
        let recurrentKernel = try reader.take("recurrent_kernel", shape: [units, width])
        var bias: [Float]?
        var biasRows = 1
        if useBias {
            if case .gru(resetAfter: true) = cell {
                bias = try reader.take("bias", shape: [2, width])
                biasRows = 2
            } else {
                bias = try reader.take("bias", shape: [width])
            }
        }
        let goBackwards = (config["go_backwards"]?.bool ?? false) != invertDirection
        let cellActivation = try activation("activation", default: "tanh")
        let recurrentActivation = try activation("recurrent_activation", default: "sigmoid")
        let returnSequences = config["return_sequences"]?.bool ?? false
        if context.engine == .reference {
            let storedBias = bias ?? [Float](repeating: 0, count: biasRows * width)
            let referenceCell: any ReferenceRecurrentCell
            switch cell {
            case .lstm:
                referenceCell = ReferenceLSTMCell(
                    units: units, kernel: kernel, recurrentKernel: recurrentKernel, bias: storedBias, activation: cellActivation,
                    recurrentActivation: recurrentActivation)
            case .gru(let resetAfter):
                referenceCell = ReferenceGRUCell(
                    units: units, resetAfter: resetAfter, kernel: kernel, recurrentKernel: recurrentKernel, bias: storedBias,
                    activation: cellActivation, recurrentActivation: recurrentActivation)
            case .simple:
                referenceCell = ReferenceSimpleRNNCell(
                    units: units, kernel: kernel, recurrentKernel: recurrentKernel, bias: storedBias, activation: cellActivation)
            }
            let result = ReferenceRecurrentLayer(
                name: layer.name, className: layer.className, cell: referenceCell, steps: inputShape[0], inputWidth: inputShape[1],
                returnSequences: returnSequences, goBackwards: goBackwards,
                parameterCount: kernel.count + recurrentKernel.count + (bias?.count ?? 0))
            return (result, useBias ? 3 : 2)
        }
        let result = RecurrentLayer(
            name: layer.name, className: layer.className, cell: cell, inputShape: inputShape, units: units, kernel: kernel,
            recurrentKernel: recurrentKernel, bias: bias, biasRows: biasRows, activation: cellActivation,
            recurrentActivation: recurrentActivation, returnSequences: returnSequences, goBackwards: goBackwards, kernels: context.kernels)
        return (result, useBias ? 3 : 2)
    }
}
