/// What a settings file's YAML may hold before Yams reads it. Yams's parser
/// recurses once per nesting level (10 KB of nested brackets overflowed the
/// stack) and copies an alias's node wherever it is used (368 bytes of
/// aliases of aliases took 2 GB). HeadsUp's settings nest four levels and
/// need no anchors, so a file that does either is refused with its line.
/// A lexical scan, so it runs before any parsing: quotes, comments and block
/// scalars (`|`, `>`) are skipped.
enum SettingsYAMLLimits {
    static let maximumBytes = 1 << 20
    /// Flow brackets open at once, and block columns (indentation plus `- `
    /// markers) on one line.
    static let maximumFlowDepth = 32
    static let maximumBlockColumns = 256

    /// The first problem as (line, message), or nil when the text is within the limits.
    static func problem(in text: String) -> (line: Int, message: String)? {
        if text.utf8.count > maximumBytes {
            return (0, "is \(text.utf8.count) bytes; a settings file is at most \(maximumBytes)")
        }
        var flowDepth = 0
        var quote: UInt8?
        // Inside a block scalar: lines indented more than this belong to it.
        var blockScalarIndent: Int?
        var lineNumber = 0
        for line in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let bytes = Array(line)
            let indent = bytes.prefix { $0 == UInt8(ascii: " ") }.count
            let blank = bytes.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }
            if let parent = blockScalarIndent, quote == nil {
                if blank || indent > parent { continue }
                blockScalarIndent = nil
            }
            var column = indent
            while column + 1 < bytes.count, bytes[column] == UInt8(ascii: "-"), bytes[column + 1] == UInt8(ascii: " ") {
                column += 2
                while column < bytes.count, bytes[column] == UInt8(ascii: " ") { column += 1 }
            }
            if quote == nil, column > maximumBlockColumns {
                return (lineNumber, "nests \(column) columns deep; HeadsUp's settings need a few levels")
            }
            var previous = UInt8(ascii: " ")
            var index = 0
            var lastSignificant: UInt8?
            while index < bytes.count {
                let byte = bytes[index]
                defer {
                    previous = byte
                    index += 1
                }
                if let open = quote {
                    if open == UInt8(ascii: "'"), byte == open, index + 1 < bytes.count, bytes[index + 1] == open {
                        index += 1  // '' inside single quotes
                    } else if open == UInt8(ascii: "\""), byte == UInt8(ascii: "\\") {
                        index += 1  // an escape inside double quotes
                    } else if byte == open {
                        quote = nil
                    }
                    continue
                }
                let atTokenStart = " \t[{,".utf8.contains(previous)
                if atTokenStart, byte == UInt8(ascii: "#") {
                    index = bytes.count
                    continue
                }
                if atTokenStart, byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                    quote = byte
                    continue
                }
                switch byte {
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    flowDepth += 1
                    if flowDepth > maximumFlowDepth {
                        return (lineNumber, "nests more than \(maximumFlowDepth) brackets deep; HeadsUp's settings need a few levels")
                    }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    flowDepth = max(0, flowDepth - 1)
                case UInt8(ascii: "&"), UInt8(ascii: "*"):
                    if atTokenStart, index + 1 < bytes.count, !" \t,[]{}\r".utf8.contains(bytes[index + 1]) {
                        return (
                            lineNumber,
                            "uses a YAML anchor or alias ('\(byte == UInt8(ascii: "&") ? "&" : "*")…'); HeadsUp's settings take none: "
                                + "write each value out, or quote a value that starts with & or *"
                        )
                    }
                default: break
                }
                if byte != UInt8(ascii: " "), byte != UInt8(ascii: "\t"), byte != UInt8(ascii: "\r") { lastSignificant = byte }
            }
            // `key: |` or `key: >-` opens a block scalar on the lines below.
            if quote == nil, let last = lastSignificant, [UInt8(ascii: "|"), UInt8(ascii: ">")].contains(last) || isBlockIndicator(bytes) {
                blockScalarIndent = indent
            }
        }
        return nil
    }

    /// A line ending in a block scalar header with chomping or indentation indicators (`|-`, `>+2`).
    private static func isBlockIndicator(_ bytes: [UInt8]) -> Bool {
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        guard let space = bytes[..<end].lastIndex(of: UInt8(ascii: " ")) else { return false }
        let token = bytes[(space + 1)..<end]
        guard let first = token.first, first == UInt8(ascii: "|") || first == UInt8(ascii: ">") else { return false }
        return token.dropFirst().allSatisfy { "+-0123456789".utf8.contains($0) }
    }
}
