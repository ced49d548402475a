/// Where a model came from, for `headsup model inspect` and the model card check.
public struct ModelInfo: Sendable {
    public enum Format: String, Sendable {
        case legacyFullModel = "legacy .h5 (model.save)"
        case legacyWeightsWithJSON = "legacy weights .h5 + architecture JSON"
        case kerasArchive = "Keras 3 .keras archive"
        case keras3WeightsWithConfig = "Keras 3 .weights.h5 + config"
    }

    public var file: String
    public var format: Format
    /// As recorded in the file ("2.3.1", "3.5.0"), or "unknown".
    public var kerasVersion: String
    public var backend: String?
    public var modelClass: String
    public var modelName: String
}
