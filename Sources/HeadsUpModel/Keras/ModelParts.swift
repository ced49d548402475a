import Foundation

/// A model file read into memory: its config text and every layer's stored
/// arrays, all that libhdf5 is needed for. A child process reads them
/// (`headsup model check --transfer`) and hands them over as bytes, so the
/// process that runs the model never calls libhdf5 on a file that might
/// crash it.
package struct ModelParts: Sendable, Equatable {
    package var configText: String
    package var versionHint: String?
    /// The file the config came from (the model, or its architecture JSON), for errors.
    package var configFile: String
    package var format: ModelInfo.Format
    package var version: String?
    package var backend: String?
    package var path: String
    /// Per layer of the config, in order: its arrays.
    package var weights: [[NamedWeight]]

    init(
        _ config: KerasModelConfig, weights source: any WeightSource, configText: String, versionHint: String?, configFile: String,
        format: ModelInfo.Format, version: String?, backend: String?, path: String
    ) throws(ModelLoadError) {
        var weights: [[NamedWeight]] = []
        for layer in config.layers { weights.append(try source.weights(for: layer)) }
        self.init(
            configText: configText, versionHint: versionHint, configFile: configFile, format: format, version: version, backend: backend, path: path,
            weights: weights)
    }

    package init(
        configText: String, versionHint: String?, configFile: String, format: ModelInfo.Format, version: String?, backend: String?, path: String,
        weights: [[NamedWeight]]
    ) {
        self.configText = configText
        self.versionHint = versionHint
        self.configFile = configFile
        self.format = format
        self.version = version
        self.backend = backend
        self.path = path
        self.weights = weights
    }

    // MARK: Bytes

    static let magic = Array("HEADSUP-MODEL-PARTS-1\n".utf8)
    /// No stored array is larger than this many values (1 GiB of Float32).
    static let largestArray = 1 << 28

    /// Magic, a little-endian UInt64 header length, the JSON header, then every array's Float32 values, little-endian.
    package func encoded() -> [UInt8] {
        let header: [String: Any] = [
            "config": configText, "versionHint": versionHint as Any, "configFile": configFile, "format": format.rawValue,
            "version": version as Any, "backend": backend as Any, "path": path,
            "layers": weights.map { layer in layer.map { ["name": $0.name, "shape": $0.shape] } },
        ]
        let json = (try? JSONSerialization.data(withJSONObject: header.compactMapValues { $0 is NSNull ? nil : $0 })) ?? Data()
        var bytes = Self.magic
        withUnsafeBytes(of: UInt64(json.count).littleEndian) { bytes += $0 }
        bytes += json
        for array in weights.joined() {
            array.values.withUnsafeBytes { raw in bytes += raw }
        }
        return bytes
    }

    /// Parts from ``encoded()`` bytes; anything that does not add up is an error, never trusted.
    package static func decode(_ bytes: [UInt8], path: String) throws(ModelLoadError) -> ModelParts {
        func fail(_ why: String) -> ModelLoadError {
            ModelLoadError(file: path, problem: .checkFailed("the checked model came back damaged: \(why)"))
        }
        guard bytes.starts(with: magic), bytes.count >= magic.count + 8 else { throw fail("no header") }
        let length = bytes[magic.count..<(magic.count + 8)].withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        guard length <= UInt64(bytes.count - magic.count - 8) else { throw fail("header longer than the data") }
        let headerEnd = magic.count + 8 + Int(length)
        guard let header = try? JSONSerialization.jsonObject(with: Data(bytes[(magic.count + 8)..<headerEnd])) as? [String: Any],
            let configText = header["config"] as? String, let configFile = header["configFile"] as? String,
            let formatName = header["format"] as? String, let format = ModelInfo.Format(rawValue: formatName),
            let layers = header["layers"] as? [[[String: Any]]]
        else { throw fail("unreadable header") }
        var offset = headerEnd
        var weights: [[NamedWeight]] = []
        for layer in layers {
            var arrays: [NamedWeight] = []
            for entry in layer {
                guard let name = entry["name"] as? String, let shape = entry["shape"] as? [Int], shape.allSatisfy({ $0 >= 0 }) else {
                    throw fail("an array without a name or shape")
                }
                var count = 1
                for dimension in shape {
                    let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
                    guard !overflow, product <= largestArray else { throw fail("array \(name) too large") }
                    count = product
                }
                guard offset + 4 * count <= bytes.count else { throw fail("array \(name) truncated") }
                let values = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
                    bytes[offset..<(offset + 4 * count)].withUnsafeBytes { raw in
                        for index in 0..<count {
                            buffer[index] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * index, as: UInt32.self)))
                        }
                    }
                    initialized = count
                }
                offset += 4 * count
                arrays.append(NamedWeight(name: name, shape: shape, values: values))
            }
            weights.append(arrays)
        }
        guard offset == bytes.count else { throw fail("\(bytes.count - offset) bytes left over") }
        return ModelParts(
            configText: configText, versionHint: header["versionHint"] as? String, configFile: configFile, format: format,
            version: header["version"] as? String, backend: header["backend"] as? String, path: header["path"] as? String ?? path, weights: weights)
    }
}

/// Weights handed over as parts, layer by layer in config order.
struct PartsWeightSource: WeightSource {
    let byName: [String: [NamedWeight]]

    init(parts: ModelParts, layers: [KerasLayerConfig]) {
        var byName: [String: [NamedWeight]] = [:]
        for (layer, arrays) in zip(layers, parts.weights) { byName[layer.name] = arrays }
        self.byName = byName
    }

    func weights(for layer: KerasLayerConfig) throws(ModelLoadError) -> [NamedWeight] { byName[layer.name] ?? [] }
}
