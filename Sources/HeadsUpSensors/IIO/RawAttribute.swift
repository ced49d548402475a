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
        let text: String
        if let descriptor {
            let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count - 1, 0) }
            if count < 0 { throw IIOError(operation: "reading \(channel.id) raw", target: target, errno: errno) }
            buffer[count] = 0
            text = String(cString: buffer).trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            text = try channel.read("raw")
        }
        guard let value = Double(text) else {
            throw IIOError(operation: "reading \(channel.id) raw ('\(text)')", target: target, errno: EINVAL)
        }
        return value
    }
}
