import Glibc

/// One channel's `raw` value, read the cheapest way the context allows.
///
/// On a `local:` context the sysfs file stays open and each read is one
/// `pread` at offset 0, which makes kernfs render a fresh value: one system
/// call per axis per tick instead of libiio's open, read and close. Polling
/// 50 times a second on a phone, that is most of the polled path's cost.
/// Elsewhere (iiod), libiio's attribute read. Errors keep the kernel's errno:
/// EBUSY (a buffer is on) and ENODEV (unplugged) mean what they say.
final class RawAttribute {
    private let channel: IIOChannel
    private let descriptor: Int32?
    private let target: String
    private var buffer = [CChar](repeating: 0, count: 64)

    init(_ channel: IIOChannel, sysfsDevice: String?) {
        self.channel = channel
        target = channel.device.label
        if let sysfsDevice, let name = channel.attributeFilename("raw") {
            let opened = open("\(sysfsDevice)/\(name)", O_RDONLY | O_CLOEXEC)
            descriptor = opened >= 0 ? opened : nil
        } else {
            descriptor = nil
        }
    }

    deinit {
        if let descriptor { close(descriptor) }
    }

    func read() throws(IIOError) -> Double {
        if let descriptor {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count - 1, 0) }
            if count < 0 { throw IIOError(operation: "reading \(channel.id) raw", target: target, errno: errno) }
            // The kernel writes an integer and a newline: parsed from the bytes, no String made (50 times a second per axis).
            if let value = buffer.withUnsafeBytes({ Self.integer(in: UnsafeRawBufferPointer(rebasing: $0[..<count])) }) {
                return Double(value)
            }
            buffer[count] = 0
            return try parse(String(cString: buffer))
        }
        return try parse(try channel.read("raw"))
    }

    private func parse(_ text: String) throws(IIOError) -> Double {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = Double(trimmed) else {
            throw IIOError(operation: "reading \(channel.id) raw ('\(trimmed)')", target: target, errno: EINVAL)
        }
        return value
    }

    /// A decimal integer with an optional sign, surrounded by optional
    /// whitespace; nil for anything else (then parsed as text).
    static func integer(in bytes: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D }
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        var negative = false
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var value: Int64 = 0
        var digits = 0
        while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, digits < 18 {
            value = value * 10 + Int64(bytes[index] - 0x30)
            digits += 1
            index += 1
        }
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        guard digits > 0, index == bytes.count else { return nil }
        return negative ? -value : value
    }
}
