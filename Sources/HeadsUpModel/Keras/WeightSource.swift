import Foundation

/// One stored weight array.
package struct NamedWeight: Sendable, Equatable {
    package var name: String
    package var shape: [Int]
    package var values: [Float]

    package init(name: String, shape: [Int], values: [Float]) {
        self.name = name
        self.shape = shape
        self.values = values
    }
}

/// Where a layer's weights come from: the two on-disk layouts Keras has
/// used. Both give a layer's arrays in the order Keras created them.
package protocol WeightSource {
    func weights(for layer: KerasLayerConfig) throws(ModelLoadError) -> [NamedWeight]
}

/// Legacy layout (`model.save("x.h5")`, `save_weights("x.h5")`): a group per
/// layer whose `weight_names` attribute lists dataset paths in order.
struct LegacyWeightSource: WeightSource {
    let file: HDF5File
    /// "/model_weights" for a full model, "/" for weights only.
    let root: String
    let layerNames: Set<String>

    init(file: HDF5File, root: String) throws(ModelLoadError) {
        self.file = file
        self.root = root
        layerNames = Set(try Self.layerNames(file: file, root: root))
    }

    /// `layer_names`, or its chunks `layer_names0`, `layer_names1`, … that
    /// Keras writes when the list exceeds HDF5's 64 KiB attribute limit.
    static func layerNames(file: HDF5File, root: String) throws(ModelLoadError) -> [String] {
        do {
            if file.hasAttribute("layer_names", at: root) { return try file.stringsAttribute("layer_names", at: root) }
            var names: [String] = []
            var chunk = 0
            while file.hasAttribute("layer_names\(chunk)", at: root) {
                names += try file.stringsAttribute("layer_names\(chunk)", at: root)
                chunk += 1
            }
            guard chunk > 0 else {
                throw ModelLoadError(file: file.name, problem: .notAModelFile("no 'layer_names' attribute at \(root)"))
            }
            return names
        } catch let error as HDF5Error {
            throw ModelLoadError(file: file.name, problem: .file(error))
        } catch let error as ModelLoadError {
            throw error
        } catch {
            fatalError("unexpected \(error)")
        }
    }

    func weights(for layer: KerasLayerConfig) throws(ModelLoadError) -> [NamedWeight] {
        let group = root == "/" ? "/\(layer.name)" : "\(root)/\(layer.name)"
        guard layerNames.contains(layer.name), file.exists(group) else { return [] }
        do {
            let names = try file.stringsAttribute("weight_names", at: group)
            return try names.map { (name) throws(HDF5Error) -> NamedWeight in
                let data = try file.floatDataset("\(group)/\(name)")
                return NamedWeight(name: name, shape: data.shape, values: data.values)
            }
        } catch {
            if error.problem == .missingObject {
                throw ModelLoadError(file: file.name, layer: layer.label, problem: .missingWeight("'\(error.object)'"))
            }
            throw ModelLoadError(file: file.name, layer: layer.label, problem: .file(error))
        }
    }
}

/// Keras 3 layout (`.weights.h5`, and inside `.keras`): `layers/<layer>/…/vars/0,1,…`,
/// positional. The numbers are read in numeric order ("10" after "9"),
/// never in HDF5's alphabetical listing.
struct Keras3WeightSource: WeightSource {
    let file: HDF5File
    private var groupByLayer: [String: String] = [:]

    init(file: HDF5File, layers: [KerasLayerConfig]) {
        self.file = file
        // Keras 3 names each group after the snake-cased class with a
        // per-class counter (dense, dense_1, …), never after the layer's name.
        var counts: [String: Int] = [:]
        for layer in layers {
            let snake = Self.snakeCase(layer.className)
            let count = counts[snake, default: 0]
            counts[snake] = count + 1
            groupByLayer[layer.name] = "/layers/\(snake)" + (count == 0 ? "" : "_\(count)")
        }
    }

    func weights(for layer: KerasLayerConfig) throws(ModelLoadError) -> [NamedWeight] {
        guard let group = groupByLayer[layer.name], file.exists(group) else { return [] }
        do {
            return try collect(group)
        } catch {
            throw ModelLoadError(file: file.name, layer: layer.label, problem: .file(error))
        }
    }

    /// The layer's own `vars` first, then its sublayers in the order Keras
    /// builds them (cell; forward before backward; wrapped layer).
    private func collect(_ group: String) throws(HDF5Error) -> [NamedWeight] {
        var weights: [NamedWeight] = []
        var index = 0
        while file.exists("\(group)/vars/\(index)") {
            let data = try file.floatDataset("\(group)/vars/\(index)")
            weights.append(NamedWeight(name: "\(group.dropFirst("/layers/".count))/\(index)", shape: data.shape, values: data.values))
            index += 1
        }
        let preferred = ["cell", "forward_layer", "backward_layer", "layer"]
        let children = try file.members(of: group).filter { $0 != "vars" }
        let ordered = preferred.filter(children.contains) + children.filter { !preferred.contains($0) }
        for child in ordered { weights += try collect("\(group)/\(child)") }
        return weights
    }

    /// Keras's `to_snake_case`: "GlobalAveragePooling1D" → "global_average_pooling1d".
    /// Its two substitutions, `(.)([A-Z][a-z]+)` → `\1_\2` and then
    /// `([a-z])([A-Z])` → `\1_\2`, written out (Python's `re.sub` takes
    /// non-overlapping matches from the left) rather than through Foundation's
    /// regular expressions, which would load ICU's tables into the daemon.
    static func snakeCase(_ name: String) -> String {
        func isUpper(_ c: Character) -> Bool { c >= "A" && c <= "Z" }
        func isLower(_ c: Character) -> Bool { c >= "a" && c <= "z" }
        var text = Array(name.filter { $0.isLetter || $0.isNumber || $0 == "_" })
        // (.)([A-Z][a-z]+): an underscore before an upper-case letter that starts a lower-case run.
        var output: [Character] = []
        var free = 0  // the first index a new match may start at
        var index = 0
        while index < text.count {
            if index >= 1, index - 1 >= free, isUpper(text[index]), index + 1 < text.count, isLower(text[index + 1]) {
                output.append("_")
                var end = index + 1
                while end < text.count, isLower(text[end]) { end += 1 }
                output += text[index..<end]
                free = end
                index = end
                continue
            }
            output.append(text[index])
            index += 1
        }
        // ([a-z])([A-Z]): an underscore between a lower- and an upper-case letter.
        text = output
        output = []
        free = 0
        for index in text.indices {
            if index >= 1, index - 1 >= free, isLower(text[index - 1]), isUpper(text[index]) {
                output.append("_")
                free = index + 1
            }
            output.append(text[index])
        }
        return String(output).lowercased()
    }
}
