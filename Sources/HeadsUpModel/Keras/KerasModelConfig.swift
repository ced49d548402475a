/// A model's architecture, read from the JSON Keras writes (legacy
/// `model_config`, `model.to_json()`, Keras 3 `config.json`): the layers of
/// a linear chain in order, and the input shape.
package struct KerasModelConfig: Sendable {
    package var modelClass: String
    package var modelName: String
    package var layers: [KerasLayerConfig]
    /// Input shape without the batch dimension.
    package var inputShape: [Int]
    /// Major version of the Keras that wrote it (2 or 3), which decides
    /// version-dependent semantics such as hard_sigmoid.
    package var kerasMajorVersion: Int

    /// Parses a model config. `versionHint` is the writer's version string
    /// when the file records one.
    package static func parse(_ text: String, versionHint: String?, file: String) throws(ModelLoadError) -> KerasModelConfig {
        func bad(_ why: String) -> ModelLoadError { ModelLoadError(file: file, problem: .badConfig(why)) }
        guard let json = JSONValue.parse(text) else { throw bad("not valid JSON") }
        guard let modelClass = json["class_name"]?.string else { throw bad("no 'class_name' at the top") }
        let major = majorVersion(hint: versionHint ?? json["keras_version"]?.string, json: json)
        let body = json["config"]
        let layers: [KerasLayerConfig]
        let modelName: String
        switch modelClass {
        case "Sequential":
            // Keras ≤ 2.2.2 wrote a bare list; later a dict with "layers".
            guard let list = body?.array ?? body?["layers"]?.array else { throw bad("Sequential without a layer list") }
            layers = try list.map { (item) throws(ModelLoadError) -> KerasLayerConfig in
                guard let layer = KerasLayerConfig(item) else { throw bad("a layer entry lacks class_name or config") }
                return layer
            }
            modelName = body?["name"]?.string ?? "sequential"
        case "Model", "Functional":
            guard let list = body?["layers"]?.array else { throw bad("\(modelClass) without a layer list") }
            layers = try linearChain(list, file: file)
            modelName = body?["name"]?.string ?? "model"
        default:
            throw ModelLoadError(file: file, problem: .unsupportedLayer(modelClass))
        }
        guard !layers.isEmpty else { throw bad("the model has no layers") }
        guard let shape = inputShape(layers: layers, body: body) else {
            throw bad("no input shape (no InputLayer, batch_input_shape or build_input_shape)")
        }
        // Each dimension fixed and positive, and the whole input small enough to allocate per example.
        guard shape.allSatisfy({ (1...maximumInputValues).contains($0) }),
            shape.reduce(1, { $0.multipliedReportingOverflow(by: $1).overflow ? Int.max : $0 * $1 }) <= maximumInputValues
        else {
            throw bad("input shape \(shape): every dimension must be a positive size and the input at most \(maximumInputValues) values")
        }
        let computeLayers = layers.filter { $0.className != "InputLayer" }
        return KerasModelConfig(
            modelClass: modelClass, modelName: modelName, layers: computeLayers, inputShape: shape, kerasMajorVersion: major)
    }

    private static func majorVersion(hint: String?, json: JSONValue) -> Int {
        if let hint, let major = Int(hint.split(separator: ".").first ?? "") { return major }
        // Keras 3 configs carry "module" keys; Keras 2 ones do not.
        return json["module"] != nil ? 3 : 2
    }

    /// Orders a functional model's layers by following its single chain of
    /// inbound nodes from the input; anything but a chain is rejected.
    private static func linearChain(_ list: [JSONValue], file: String) throws(ModelLoadError) -> [KerasLayerConfig] {
        var layers: [KerasLayerConfig] = []
        var previous: String?
        for item in list {
            guard let layer = KerasLayerConfig(item) else {
                throw ModelLoadError(file: file, problem: .badConfig("a layer entry lacks class_name or config"))
            }
            let name = item["name"]?.string ?? layer.name
            let inbound = inboundLayerNames(item["inbound_nodes"])
            if let previous {
                guard inbound == [previous] else {
                    throw ModelLoadError(
                        file: file, layer: layer.label,
                        problem: .unsupportedOption("a functional graph that is not a single chain (inputs \(inbound), expected [\(previous)])"))
                }
            } else if !inbound.isEmpty {
                throw ModelLoadError(file: file, layer: layer.label, problem: .badConfig("the first layer has inputs \(inbound)"))
            }
            layers.append(KerasLayerConfig(className: layer.className, name: name, config: layer.config))
            previous = name
        }
        return layers
    }

    /// The layer names feeding a layer, in both styles: tf.keras nested
    /// lists `[[["name", 0, 0, {}]]]` and Keras 3 `[{"args": [keras tensor]}]`.
    static func inboundLayerNames(_ nodes: JSONValue?) -> [String] {
        guard let nodes = nodes?.array else { return [] }
        var names: [String] = []
        for node in nodes {
            if let entries = node.array {
                for entry in entries { if let name = entry.array?.first?.string { names.append(name) } }
            } else if let arguments = node["args"]?.array {
                collectKerasTensorNames(.array(arguments), into: &names)
            }
        }
        return names
    }

    private static func collectKerasTensorNames(_ value: JSONValue, into names: inout [String]) {
        if value["class_name"]?.string == "__keras_tensor__", let history = value["config"]?["keras_history"]?.array,
            let name = history.first?.string
        {
            names.append(name)
        } else if let items = value.array {
            for item in items { collectKerasTensorNames(item, into: &names) }
        }
    }

    /// Values in one example's input at most: far above any sensor window, far below what fails to allocate.
    static let maximumInputValues = 1 << 24

    private static func inputShape(layers: [KerasLayerConfig], body: JSONValue?) -> [Int]? {
        func withoutBatch(_ value: JSONValue?) -> [Int]? {
            guard let items = value?.array, items.count >= 2 else { return nil }
            let dims = items.dropFirst().compactMap(\.int)
            return dims.count == items.count - 1 ? dims : nil
        }
        let first = layers[0].config
        return withoutBatch(first["batch_input_shape"]) ?? withoutBatch(first["batch_shape"])
            ?? withoutBatch(body?["build_input_shape"])
            ?? withoutBatch(first["build_config"]?["input_shape"])
    }
}
