import Glibc
import HeadsUpSystem

/// Reads a file line by line through a fixed buffer, so a session of any
/// length streams in constant memory. Lines are handed out as byte views
/// into the buffer (no copies, no String per line) with any trailing `\r`
/// already removed. The one line reader: session CSVs and the command
/// line's input files both go through it.
public final class LineReader {
    /// Longer lines are rejected by default: a session row is about 120
    /// bytes, and a line of megabytes means the file is not a session at all.
    public static let sessionLineLimit = 16 * 1024

    private let maximumLineLength: Int
    private let file: PosixFile
    private let ownsFile: Bool
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var reachedEnd = false
    public private(set) var lineNumber = 0

    init(file: PosixFile, capacity: Int = 256 * 1024, maximumLineLength: Int = sessionLineLimit, ownsFile: Bool = true) {
        self.file = file
        self.maximumLineLength = maximumLineLength
        self.ownsFile = ownsFile
        self.buffer = .allocate(byteCount: max(capacity, maximumLineLength * 2), alignment: 16)
    }

    /// Lines of the file at `path`, or of standard input for `-`.
    public static func open(_ path: String, maximumLineLength: Int = sessionLineLimit) throws(SystemCallError) -> LineReader {
        if path == "-" {
            return LineReader(
                file: PosixFile(descriptor: STDIN_FILENO, path: "standard input"), maximumLineLength: maximumLineLength, ownsFile: false)
        }
        return LineReader(file: try PosixFile.open(path, .read), maximumLineLength: maximumLineLength)
    }

    deinit {
        buffer.deallocate()
        if ownsFile { try? file.close() }
    }

    /// The next line as text, or nil at the end.
    public func nextText() throws(LineReaderError) -> String? {
        do { return try nextLine { String(decoding: $0, as: UTF8.self) } } catch let error as LineReaderError { throw error } catch {
            fatalError("nextLine's body does not throw")
        }
    }

    /// Calls `body` with the next line (without its terminator) and returns
    /// its result, or returns `nil` at the end of the file.
    func nextLine<R>(_ body: (UnsafeRawBufferPointer) throws -> R) throws -> R? {
        while true {
            let base = buffer.baseAddress!
            if let newline = memchr(base + start, 0x0A, end - start) {
                let newlineOffset = base.distance(to: newline)
                let line = UnsafeRawBufferPointer(start: base + start, count: trimmedLength(from: start, to: newlineOffset))
                start = newlineOffset + 1
                lineNumber += 1
                return try body(line)
            }
            if reachedEnd {
                guard start < end else { return nil }
                let line = UnsafeRawBufferPointer(start: base + start, count: trimmedLength(from: start, to: end))
                start = end
                lineNumber += 1
                return try body(line)
            }
            if end - start >= maximumLineLength { throw LineReaderError.tooLong(line: lineNumber + 1, limit: maximumLineLength) }
            try refill()
        }
    }

    private func trimmedLength(from lineStart: Int, to lineEnd: Int) -> Int {
        var length = lineEnd - lineStart
        if length > 0, buffer[lineEnd - 1] == 0x0D { length -= 1 }
        return length
    }

    private func refill() throws {
        if start > 0 {
            let pending = end - start
            if pending > 0 { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: pending) }
            start = 0
            end = pending
        }
        do {
            let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
            if count == 0 { reachedEnd = true } else { end += count }
        } catch {
            throw LineReaderError.system(error)
        }
    }
}

/// A line that cannot be read: too long for the reader, or a failed read.
public enum LineReaderError: Error, Sendable, CustomStringConvertible {
    case tooLong(line: Int, limit: Int)
    case system(SystemCallError)

    public var description: String {
        switch self {
        case .tooLong(let line, let limit): "line \(line) is longer than \(limit) bytes"
        case .system(let error): "\(error)"
        }
    }
}
