import Foundation

/// A fresh directory removed when the value goes away.
public final class TemporaryDirectory {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("headsup-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A path inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        let path = self.path(name)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }
}
