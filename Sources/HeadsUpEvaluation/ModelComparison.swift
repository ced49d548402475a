import Foundation

/// Several models evaluated on the same sessions: what `--json` writes for
/// `headsup evaluate --model A --model B`.
public struct ModelComparison: Sendable, Codable {
    public var models: [EvaluationReport]

    public init(models: [EvaluationReport]) { self.models = models }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
