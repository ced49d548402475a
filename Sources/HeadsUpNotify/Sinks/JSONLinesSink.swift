import Foundation

/// One JSON object per warning, to standard output or appended to a file.
public final class JSONLinesSink: NotificationSink {
    public let name: String
    private let handle: FileHandle

    /// `path` "-" is standard output.
    public init(path: String) throws {
        if path == "-" {
            handle = .standardOutput
        } else {
            if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            guard let file = FileHandle(forWritingAtPath: path) else {
                throw SinkError(sink: "json \(path)", message: "cannot open for appending")
            }
            file.seekToEndOfFile()
            handle = file
        }
        name = "json \(path)"
    }

    public func deliver(_ notification: NotificationMessage) throws {
        handle.write(Data((Self.line(notification) + "\n").utf8))
    }

    static func line(_ notification: NotificationMessage) -> String {
        var object: [String: Any] = ["event": "warning", "title": notification.title, "body": notification.body, "time": notification.time]
        for (key, value) in notification.fields { object[key] = value }
        return SortedJSON.encode(object)
    }
}
