import HeadsUpKernels

/// One builder per Keras layer class (``LayerFactory/builders`` maps the names).
extension LayerFactory {
    static func identity(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        try r.reader.finish(expected: 0)
        return IdentityLayer(name: r.layer.name, className: r.layer.className, outputShape: r.inputShape)
    }

    static func dense(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        let units = try r.int("units")
        let useBias = r.bool("use_bias", default: true)
        let kernel = try r.reader.take("kernel", shape: [r.inputShape.last!, units])
        let bias = useBias ? try r.reader.take("bias", shape: [units]) : nil
        try r.reader.finish(expected: useBias ? 2 : 1)
        let denseActivation = try r.activation("activation", default: "linear")
        if r.context.engine == .reference {
            return ReferenceDenseLayer(
                name: r.layer.name, inputWidth: r.inputShape.last!, units: units, kernel: kernel, bias: bias ?? [],
                activation: denseActivation, outputShape: r.inputShape.dropLast() + [units])
        }
        return DenseLayer(
            name: r.layer.name, inputShape: r.inputShape, units: units, kernel: kernel, bias: bias, activation: denseActivation,
            kernels: r.context.kernels)
    }

    static func activation(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        try r.reader.finish(expected: 0)
        return ActivationLayer(name: r.layer.name, outputShape: r.inputShape, activation: try r.activation("activation", default: "linear"))
    }

    static func reshape(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        guard var target = r.config["target_shape"]?.ints else { throw r.fail(.badConfig("'target_shape' is missing")) }
        let total = r.inputShape.reduce(1, *)
        if let unknown = target.firstIndex(of: -1) {
            target[unknown] = total / target.filter { $0 != -1 }.reduce(1, *)
        }
        guard target.reduce(1, *) == total else {
            throw r.fail(.badConfig("cannot reshape \(r.inputShape) into \(target)"))
        }
        try r.reader.finish(expected: 0)
        return ReshapeLayer(name: r.layer.name, className: "Reshape", outputShape: target)
    }

    static func flatten(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        if let format = r.config["data_format"]?.string, format == "channels_first", r.inputShape.count > 1 {
            throw r.fail(.unsupportedOption("Flatten with data_format channels_first"))
        }
        try r.reader.finish(expected: 0)
        return ReshapeLayer(name: r.layer.name, className: "Flatten", outputShape: [r.inputShape.reduce(1, *)])
    }

    static func permute(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        guard let dims = r.config["dims"]?.ints, dims.sorted() == Array(1...r.inputShape.count) else {
            throw r.fail(.badConfig("'dims' must be a permutation of 1…\(r.inputShape.count)"))
        }
        try r.reader.finish(expected: 0)
        return PermuteLayer(name: r.layer.name, inputShape: r.inputShape, dims: dims)
    }

    static func recurrent(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        let recurrent = try makeRecurrent(r.layer, inputShape: r.inputShape, reader: &r.reader, context: r.context, invertDirection: false)
        try r.reader.finish(expected: recurrent.expectedWeights)
        return recurrent.layer
    }

    static func bidirectional(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        try r.requireRank(2)
        guard let inner = r.config["layer"].flatMap(KerasLayerConfig.init) else {
            throw r.fail(.badConfig("Bidirectional without an inner 'layer'"))
        }
        guard let mergeName = r.config["merge_mode"]?.string else {
            throw r.fail(.unsupportedOption("merge_mode None (two outputs; HeadsUp runs single-output chains)"))
        }
        guard let merge = BidirectionalLayer.Merge(rawValue: mergeName) else {
            throw r.fail(.unsupportedOption("merge_mode '\(mergeName)'"))
        }
        let backwardConfig = r.config["backward_layer"].flatMap(KerasLayerConfig.init)
        let forward = try makeRecurrent(inner, inputShape: r.inputShape, reader: &r.reader, context: r.context, invertDirection: false)
        let backward = try makeRecurrent(
            backwardConfig ?? inner, inputShape: r.inputShape, reader: &r.reader, context: r.context, invertDirection: backwardConfig == nil)
        try r.reader.finish(expected: forward.expectedWeights + backward.expectedWeights)
        return BidirectionalLayer(name: r.layer.name, forward: forward.layer, backward: backward.layer, merge: merge)
    }

    static func timeDistributed(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        try r.requireRank(2)
        guard let inner = r.config["layer"].flatMap(KerasLayerConfig.init) else {
            throw r.fail(.badConfig("TimeDistributed without an inner 'layer'"))
        }
        let innerLayer = try make(inner, inputShape: Array(r.inputShape.dropFirst()), weights: r.weights, context: r.context)
        return TimeDistributedLayer(
            name: r.layer.name, inner: innerLayer, steps: r.inputShape[0], outputShape: [r.inputShape[0]] + innerLayer.outputShape)
    }

    static func conv1D(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        try r.requireRank(2)
        try r.requireChannelsLast()
        if try r.int("groups", default: 1) != 1 { throw r.fail(.unsupportedOption("grouped Conv1D")) }
        let filters = try r.int("filters")
        let kernelSize = try r.int("kernel_size")
        let stride = try r.int("strides", default: 1)
        let dilation = try r.int("dilation_rate", default: 1)
        guard stride == 1 || dilation == 1 else { throw r.fail(.unsupportedOption("strides > 1 with dilation_rate > 1")) }
        let paddingName = r.config["padding"]?.string ?? "valid"
        guard let padding = Conv1DLayer.Padding(rawValue: paddingName) else {
            throw r.fail(.unsupportedOption("padding '\(paddingName)'"))
        }
        let useBias = r.bool("use_bias", default: true)
        let (steps, channels) = (r.inputShape[0], r.inputShape[1])
        let kernel = try r.reader.take("kernel", shape: [kernelSize, channels, filters])
        let bias = useBias ? try r.reader.take("bias", shape: [filters]) : nil
        try r.reader.finish(expected: useBias ? 2 : 1)
        let convActivation = try r.activation("activation", default: "linear")
        if r.context.engine == .reference {
            return ReferenceConv1DLayer(
                name: r.layer.name, steps: steps, channels: channels, filters: filters, kernelSize: kernelSize, stride: stride,
                dilation: dilation,
                geometry: Conv1DGeometry(steps: steps, kernelSize: kernelSize, stride: stride, dilation: dilation, padding: padding),
                kernel: kernel, bias: bias ?? [], activation: convActivation)
        }
        return Conv1DLayer(
            name: r.layer.name, inputShape: r.inputShape, filters: filters, kernelSize: kernelSize, stride: stride,
            dilation: dilation, padding: padding, kernel: kernel, bias: bias, activation: convActivation, kernels: r.context.kernels)
    }

    static func pooling(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        try r.requireRank(2)
        try r.requireChannelsLast()
        let poolSize = try r.int("pool_size", default: 2)
        let stride = r.config["strides"]?.ints?.first ?? poolSize
        let paddingName = r.config["padding"]?.string ?? "valid"
        guard paddingName == "valid" || paddingName == "same" else {
            throw r.fail(.unsupportedOption("padding '\(paddingName)'"))
        }
        try r.reader.finish(expected: 0)
        return Pooling1DLayer(
            name: r.layer.name, className: r.layer.className, inputShape: r.inputShape, poolSize: poolSize, stride: stride,
            same: paddingName == "same")
    }

    static func globalPooling(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        try r.requireRank(2)
        try r.requireChannelsLast()
        let keepDims = r.bool("keepdims", default: false)
        try r.reader.finish(expected: 0)
        let channels = r.inputShape[1]
        return GlobalPooling1DLayer(
            name: r.layer.name, className: r.layer.className, isMax: r.layer.className.contains("Max"),
            steps: r.inputShape[0], channels: channels, outputShape: keepDims ? [1, channels] : [channels])
    }

    static func batchNormalization(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        try r.requireLastAxis()
        let features = r.inputShape.last!
        let scale = r.bool("scale", default: true)
        let center = r.bool("center", default: true)
        let gamma = scale ? try r.reader.take("gamma", shape: [features]) : nil
        let beta = center ? try r.reader.take("beta", shape: [features]) : nil
        let mean = try r.reader.take("moving_mean", shape: [features])
        let variance = try r.reader.take("moving_variance", shape: [features])
        try r.reader.finish(expected: 2 + (scale ? 1 : 0) + (center ? 1 : 0))
        return AffineFeatureLayer.batchNormalization(
            name: r.layer.name, shape: r.inputShape, gamma: gamma, beta: beta, mean: mean, variance: variance,
            epsilon: Float(r.config["epsilon"]?.number ?? 1e-3))
    }

    static func normalization(_ r: inout LayerRequest) throws(ModelLoadError) -> any InferenceLayer {
        try r.requireLastAxis()
        let features = r.inputShape.last!
        let mean: [Float]
        let variance: [Float]
        if r.weights.isEmpty, let m = r.config["mean"]?.array?.compactMap(\.number), let v = r.config["variance"]?.array?.compactMap(\.number) {
            mean = m.map(Float.init)
            variance = v.map(Float.init)
        } else {
            // Stored with broadcast shape, e.g. (1, 1, 9) in tf.keras, (9,) in Keras 3.
            let stored = r.weights.first?.shape ?? [features]
            guard stored.reduce(1, *) == features else {
                throw r.fail(.shapeMismatch(weight: "mean", expected: [features], found: stored))
            }
            mean = try r.reader.take("mean", shape: stored)
            variance = try r.reader.take("variance", shape: stored)
            _ = try r.reader.take("count", shape: [])
            try r.reader.finish(expected: 3)
        }
        guard mean.count == features, variance.count == features else {
            throw r.fail(.shapeMismatch(weight: "mean", expected: [features], found: [mean.count]))
        }
        return AffineFeatureLayer.normalization(
            name: r.layer.name, shape: r.inputShape, mean: mean, variance: variance, invert: r.bool("invert", default: false))
    }

    /// A recurrent layer (also the halves of a Bidirectional). `invertDirection`
    /// makes the backward copy of a Bidirectional built from its forward config.
    fileprivate static func makeRecurrent(
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
