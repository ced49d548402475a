/// Reads members of a zip archive held in memory: enough for Keras 3's
/// `.keras` files, whose members Keras stores uncompressed.
struct ZipArchive {

    private let bytes: [UInt8]
    private var entries: [String: (offset: Int, size: Int, method: Int)] = [:]

    init(_ bytes: [UInt8]) throws(ZipArchiveError) {
        self.bytes = bytes
        guard bytes.count >= 22 else { throw .notAZip }
        var end = bytes.count - 22
        let earliest = max(0, bytes.count - 22 - 65_535)
        while end >= earliest, read32(end) != 0x0605_4B50 { end -= 1 }
        guard end >= earliest else { throw .notAZip }
        let count = Int(read16(end + 10))
        var position = Int(read32(end + 16))
        for _ in 0..<count {
            guard position + 46 <= bytes.count, read32(position) == 0x0201_4B50 else {
                throw .damaged("central directory")
            }
            let method = Int(read16(position + 10))
            let compressedSize = Int(read32(position + 20))
            let nameLength = Int(read16(position + 28))
            let extraLength = Int(read16(position + 30))
            let commentLength = Int(read16(position + 32))
            let localHeader = Int(read32(position + 42))
            guard position + 46 + nameLength <= bytes.count else { throw .damaged("member name") }
            let name = String(decoding: bytes[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
            guard localHeader + 30 <= bytes.count, read32(localHeader) == 0x0403_4B50 else {
                throw .damaged("local header of \(name)")
            }
            let dataStart = localHeader + 30 + Int(read16(localHeader + 26)) + Int(read16(localHeader + 28))
            guard dataStart + compressedSize <= bytes.count else { throw .damaged("\(name) is truncated") }
            entries[name] = (dataStart, compressedSize, method)
            position += 46 + nameLength + extraLength + commentLength
        }
    }

    func member(_ name: String) throws(ZipArchiveError) -> [UInt8]? {
        guard let entry = entries[name] else { return nil }
        guard entry.method == 0 else { throw .compressed(member: name, method: entry.method) }
        return Array(bytes[entry.offset..<(entry.offset + entry.size)])
    }

    private func read16(_ offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }
    private func read32(_ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}

enum ZipArchiveError: Error, CustomStringConvertible {
    case notAZip
    case damaged(String)
    case compressed(member: String, method: Int)

    var description: String {
        switch self {
        case .notAZip: "not a zip archive (a .keras file is one)"
        case .damaged(let what): "damaged zip archive (\(what))"
        case .compressed(let member, let method):
            "member \(member) is compressed (method \(method)); Keras stores .keras members uncompressed, re-save it with Keras"
        }
    }
}
