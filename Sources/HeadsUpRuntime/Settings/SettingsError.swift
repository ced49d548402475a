/// A configuration problem, naming the file (or "command line", or the model
/// card) and the key, so the user knows what to change where.
public struct SettingsError: Error, Sendable, CustomStringConvertible {
    public var source: String
    public var key: String?
    public var message: String

    public init(source: String, key: String? = nil, message: String) {
        self.source = source
        self.key = key
        self.message = message
    }

    public var description: String { key.map { "\(source): \($0): \(message)" } ?? "\(source): \(message)" }
}
