import Glibc

/// Reads a file line by line through a fixed buffer, so a session of any
/// length streams in constant memory. Lines are handed out as byte views
/// into the buffer (no copies, no String per line) with any trailing `\r`
/// already removed.
final class LineReader {
    /// Longer lines are rejected: a session row is about 120 bytes, and a
    /// line of megabytes means the file is not a session at all.
    static let maximumLineLength = 16 * 1024

    private let file: PosixFile
    private var buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var reachedEnd = false
    private(set) var lineNumber = 0

    init(file: PosixFile, capacity: Int = 256 * 1024) {
        self.file = file
        self.buffer = .allocate(byteCount: max(capacity, Self.maximumLineLength * 2), alignment: 16)
    }

    deinit {
        buffer.deallocate()
        try? file.close()
    }

    enum LineError: Error {
        case tooLong(line: Int)
        case system(SystemCallError)
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
            if end - start >= Self.maximumLineLength { throw LineError.tooLong(line: lineNumber + 1) }
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
            throw LineError.system(error)
        }
    }
}
