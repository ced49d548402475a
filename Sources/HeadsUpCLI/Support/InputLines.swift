import Foundation
import HeadsUpData

/// Model inputs as text: one example per line, comma-separated floats in C
/// order. Blank lines are skipped; a bad line stops with its place.
enum InputLines {
    /// A line of a large model's input can be long; a megabyte is plenty.
    static let lineLimit = 1 << 20

    /// Calls `body` with each line's `width` values; `path` is a file or `-`.
    static func read(_ path: String, width: Int, shape: [Int]? = nil, _ body: ([Float]) throws -> Void) throws {
        let lines = try LineReader.open(path, maximumLineLength: lineLimit)
        while true {
            let line: String?
            do { line = try lines.nextText() } catch { throw CommandError("\(path): \(error)") }
            guard let line else { return }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            guard fields.count == width else {
                throw CommandError(
                    "\(path):\(lines.lineNumber): expected \(width) values\(shape.map { " (input shape \($0))" } ?? ""), found \(fields.count)")
            }
            var values: [Float] = []
            values.reserveCapacity(width)
            for (column, field) in fields.enumerated() {
                guard let value = Float(field.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                    throw CommandError("\(path):\(lines.lineNumber):\(column + 1): '\(field)' is not a finite number")
                }
                values.append(value)
            }
            try body(values)
        }
    }
}
