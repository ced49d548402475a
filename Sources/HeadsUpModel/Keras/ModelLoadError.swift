import HeadsUpKernels

/// Why a model file could not be loaded, naming the file, the layer and
/// what was expected, so the user knows whether to re-export, re-train or
/// report a missing feature.
public struct ModelLoadError: Error, CustomStringConvertible {
    public enum Problem: Sendable {
        case file(HDF5Error)
        case notAModelFile(String)
        case badConfig(String)
        case missingArchitecture
        case unsupportedLayer(String)
        case unsupportedActivation(String)
        case unsupportedOption(String)
        case missingWeight(String)
        case shapeMismatch(weight: String, expected: [Int], found: [Int])
        case weightCount(expected: Int, found: Int)
        /// A weight holding NaN or an infinity: a damaged file, or a training run that diverged.
        case nonFiniteWeight(weight: String, index: Int, value: Float)
        /// The check in a child process died reading the file (libhdf5 crashes on some damaged files).
        case crashedReading(signal: Int32)
        /// The check in a child process did not finish in time, or failed to run.
        case checkFailed(String)
        /// The child process's own error, already worded for the user (it names the file).
        case reportedByCheck(String)
    }

    public var file: String
    /// The layer at fault, as "name (Class)".
    public var layer: String?
    public var problem: Problem

    public init(file: String, layer: String? = nil, problem: Problem) {
        self.file = file
        self.layer = layer
        self.problem = problem
    }

    public var description: String {
        let place = layer.map { "\(file): layer \($0)" } ?? file
        switch problem {
        case .file(let error):
            return layer == nil ? error.description : "\(place): \(error.description)"
        case .notAModelFile(let why):
            return "\(file): not a Keras model file: \(why)"
        case .badConfig(let why):
            return "\(place): model config: \(why)"
        case .missingArchitecture:
            return "\(file): holds weights only; pass the model's architecture JSON too "
                + "(model.to_json() for a legacy .h5, the config for a .weights.h5), e.g. `headsup model … --config model.json`; "
                + "replay, evaluate and live need the full model (model.save(\"model.h5\") or a .keras file)"
        case .unsupportedLayer(let className):
            return "\(place): layer class '\(className)' is not supported by HeadsUp's engine "
                + "(supported: \(LayerFactory.supportedClassNames.joined(separator: ", ")))"
        case .unsupportedActivation(let name):
            return "\(place): activation '\(name)' is not supported "
                + "(supported: \(Activation.supportedNames.joined(separator: ", ")))"
        case .unsupportedOption(let what):
            return "\(place): \(what) is not supported"
        case .missingWeight(let what):
            return "\(place): weight \(what) is missing from the file"
        case .shapeMismatch(let weight, let expected, let found):
            return "\(place): weight '\(weight)' has shape \(found) in the file, but the config implies \(expected)"
        case .weightCount(let expected, let found):
            return "\(place): the file holds \(found) weight arrays, the config implies \(expected)"
        case .nonFiniteWeight(let weight, let index, let value):
            return "\(place): weight '\(weight)' holds \(value) at index \(index): the file is damaged or its training diverged. "
                + "Copy the model again, or re-train it"
        case .crashedReading(let signal):
            return "\(file): the file is corrupt: libhdf5 crashed reading it (signal \(signal)); HeadsUp did not load it. "
                + "Copy the model again or re-export it from Keras"
        case .checkFailed(let why):
            return "\(file): could not check the file in a separate process: \(why)"
        case .reportedByCheck(let message):
            return message
        }
    }
}
