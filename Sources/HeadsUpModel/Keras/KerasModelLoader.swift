import Foundation
import HeadsUpKernels

/// Reads every file layout Keras writes and builds a ``KerasModel``:
///
/// - legacy full model `.h5` (`model.save`): Keras 2.3.1 (h5py 2 strings),
///   tf.keras 2.x and Keras 3;
/// - legacy weights-only `.h5` plus `model.to_json()`;
/// - Keras 3 `.keras` archives and `.weights.h5` plus the config.
///
/// Weights are found through `weight_names` (legacy) or the positional
/// `vars/N` (Keras 3), never through HDF5's alphabetical listing.
public enum KerasModelLoader {
    /// Which implementation the weighted layers get.
    public enum Engine: String, Sendable, CaseIterable {
        /// Packed weights and vector kernels: what HeadsUp scores with.
        case fast
        /// `Reference/`: Keras's math written plainly, the oracle the fast layers are tested against.
        case reference
    }

    /// Loads `path`; `architecture` is the JSON file a weights-only file
    /// needs; `engine` picks the fast layers or the plain reference ones.
    /// The fast layers run the best kernels this CPU has.
    public static func load(path: String, architecture: String? = nil, engine: Engine = .fast) throws(ModelLoadError) -> KerasModel {
        try load(path: path, architecture: architecture, engine: engine, kernels: .best)
    }

    /// The same with the fast layers on `kernels` (``KernelTable/forThisMachine(environment:)``).
    package static func load(path: String, architecture: String? = nil, engine: Engine = .fast, kernels: KernelTable) throws(ModelLoadError)
        -> KerasModel
    {
        try assemble(try readParts(path: path, architecture: architecture), engine: engine, kernels: kernels)
    }

    /// The model built from parts read before (here or in a child process).
    package static func assemble(_ parts: ModelParts, engine: Engine = .fast, kernels: KernelTable = .best) throws(ModelLoadError) -> KerasModel {
        let config = try KerasModelConfig.parse(parts.configText, versionHint: parts.versionHint, file: parts.configFile)
        guard parts.weights.count == config.layers.count else {
            throw ModelLoadError(file: parts.path, problem: .weightCount(expected: config.layers.count, found: parts.weights.count))
        }
        return try assemble(
            config, weights: PartsWeightSource(parts: parts, layers: config.layers),
            info: info(parts.path, parts.format, parts.version, parts.backend, config), file: parts.path, engine: engine, kernels: kernels)
    }

    /// Everything of a model file that takes libhdf5 to read: the config
    /// and each layer's stored arrays.
    package static func readParts(path: String, architecture: String? = nil) throws(ModelLoadError) -> ModelParts {
        // A directory opens for reading too, and a read of it traps inside Foundation; a pipe would block.
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            let kind = status.st_mode & S_IFMT == S_IFDIR ? "is a directory" : "is not a regular file (a device, pipe or socket)"
            throw ModelLoadError(file: path, problem: .notAModelFile("\(kind); give the path of the model file (.h5 or .keras)"))
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (permissions?)" : "no such file"
            throw ModelLoadError(file: path, problem: .notAModelFile(reason))
        }
        let magic = [UInt8]((try? handle.read(upToCount: 8)) ?? Data())
        try? handle.close()
        if magic.starts(with: [0x50, 0x4B, 0x03, 0x04]) { return try readArchive(path: path) }
        let file: HDF5File
        do {
            file = try HDF5File(path: path)
        } catch {
            throw ModelLoadError(file: path, problem: .file(error))
        }
        if file.hasAttribute("model_config") {
            let text = try attribute("model_config", of: file)
            let version = file.hasAttribute("keras_version") ? try attribute("keras_version", of: file) : nil
            let backend = file.hasAttribute("backend") ? try attribute("backend", of: file) : nil
            let config = try KerasModelConfig.parse(text, versionHint: version, file: path)
            let root = file.exists("/model_weights") ? "/model_weights" : "/"
            let weights = try LegacyWeightSource(file: file, root: root)
            return try ModelParts(
                config, weights: weights, configText: text, versionHint: version, configFile: path, format: .legacyFullModel, version: version,
                backend: backend, path: path)
        }
        guard let architecture else { throw ModelLoadError(file: path, problem: .missingArchitecture) }
        let text = try readText(architecture)
        if file.hasAttribute("layer_names") || file.hasAttribute("layer_names0") {
            let version = file.hasAttribute("keras_version") ? try attribute("keras_version", of: file) : nil
            let backend = file.hasAttribute("backend") ? try attribute("backend", of: file) : nil
            let config = try KerasModelConfig.parse(text, versionHint: version, file: architecture)
            let weights = try LegacyWeightSource(file: file, root: "/")
            return try ModelParts(
                config, weights: weights, configText: text, versionHint: version, configFile: architecture, format: .legacyWeightsWithJSON,
                version: version, backend: backend, path: path)
        }
        if file.exists("/layers") || file.exists("/vars") {
            let config = try KerasModelConfig.parse(text, versionHint: "3", file: architecture)
            let weights = Keras3WeightSource(file: file, layers: config.layers)
            return try ModelParts(
                config, weights: weights, configText: text, versionHint: "3", configFile: architecture, format: .keras3WeightsWithConfig,
                version: nil,
                backend: nil, path: path)
        }
        throw ModelLoadError(file: path, problem: .notAModelFile("HDF5, but neither a Keras model nor Keras weights"))
    }

    private static func readArchive(path: String) throws(ModelLoadError) -> ModelParts {
        func fail(_ why: String) -> ModelLoadError { ModelLoadError(file: path, problem: .notAModelFile(why)) }
        guard let data = FileManager.default.contents(atPath: path) else { throw fail("cannot be read") }
        do {
            let archive = try ZipArchive([UInt8](data))
            guard let configBytes = try archive.member("config.json") else { throw fail(".keras archive without config.json") }
            guard let weightBytes = try archive.member("model.weights.h5") else {
                throw fail(".keras archive without model.weights.h5")
            }
            let metadata = try archive.member("metadata.json").flatMap { JSONValue.parse(String(decoding: $0, as: UTF8.self)) }
            let version = metadata?["keras_version"]?.string
            let text = String(decoding: configBytes, as: UTF8.self)
            let config = try KerasModelConfig.parse(text, versionHint: version ?? "3", file: path)
            let file: HDF5File
            do {
                file = try HDF5File(image: weightBytes, name: "\(path)!model.weights.h5")
            } catch {
                throw ModelLoadError(file: path, problem: .file(error))
            }
            let weights = Keras3WeightSource(file: file, layers: config.layers)
            return try ModelParts(
                config, weights: weights, configText: text, versionHint: version ?? "3", configFile: path, format: .kerasArchive, version: version,
                backend: nil, path: path)
        } catch let problem as ZipArchiveError {
            throw fail(problem.description)
        } catch let error as ModelLoadError {
            throw error
        } catch {
            throw fail("\(error)")
        }
    }

    /// The layers of `config` with their weights (also what the weight-mapping fuzzer drives, over in-memory arrays).
    package static func assemble(
        _ config: KerasModelConfig, weights: any WeightSource, info: ModelInfo, file: String, engine: Engine, kernels: KernelTable = .best
    ) throws(ModelLoadError) -> KerasModel {
        let context = LayerFactory.Context(file: file, kerasMajorVersion: config.kerasMajorVersion, engine: engine, kernels: kernels)
        var shape = config.inputShape
        var layers: [any InferenceLayer] = []
        for layerConfig in config.layers {
            let arrays = try weights.weights(for: layerConfig)
            for array in arrays {
                if let index = array.values.firstIndex(where: { !$0.isFinite }) {
                    throw ModelLoadError(
                        file: file, layer: layerConfig.label,
                        problem: .nonFiniteWeight(weight: array.name, index: index, value: array.values[index]))
                }
            }
            let layer = try LayerFactory.make(layerConfig, inputShape: shape, weights: arrays, context: context)
            layers.append(layer)
            shape = layer.outputShape
        }
        return KerasModel(info: info, layers: layers, inputShape: config.inputShape, kernels: engine == .fast ? kernels.level : nil)
    }

    package static func info(
        _ path: String, _ format: ModelInfo.Format, _ version: String?, _ backend: String?, _ config: KerasModelConfig
    ) -> ModelInfo {
        ModelInfo(
            file: path, format: format, kerasVersion: version ?? (format == .keras3WeightsWithConfig ? "3" : "unknown"),
            backend: backend, modelClass: config.modelClass, modelName: config.modelName)
    }

    private static func attribute(_ name: String, of file: HDF5File) throws(ModelLoadError) -> String {
        do {
            return try file.stringAttribute(name)
        } catch {
            throw ModelLoadError(file: file.name, problem: .file(error))
        }
    }

    private static func readText(_ path: String) throws(ModelLoadError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ModelLoadError(file: path, problem: .notAModelFile("the architecture JSON cannot be read"))
        }
        return String(decoding: data, as: UTF8.self)
    }
}
