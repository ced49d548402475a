import Foundation

/// Writes a command's output file (a report, a JSON summary) so that a
/// failure names the file and the reason, and a special file stays what it
/// is: a regular file (or a new one) is replaced at once through a temporary
/// file and a rename, the target of a symlink in its place, and a device or
/// pipe (`/dev/stdout`) is written to, never renamed over.
enum OutputFile {
    static func write(_ data: Data, to path: String) throws(CommandError) {
        var status = stat()
        if stat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFDIR: throw CommandError("\(path): is a directory; give a file name")
            default: return try writeInPlace(data, to: path)
            }
        }
        // Through a symlink, the file it points to is replaced and the link stays.
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath()
        do {
            try data.write(to: target, options: .atomic)
        } catch {
            throw CommandError("\(path): cannot write it (\(reason(error))); check that its folder exists and is writable")
        }
    }

    /// A device or a pipe: opened and written, with every byte accounted for.
    private static func writeInPlace(_ data: Data, to path: String) throws(CommandError) {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CommandError("\(path): cannot open it for writing (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        var written = 0
        let failure: Int32? = data.withUnsafeBytes { bytes in
            while written < bytes.count {
                let n = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += n
            }
            return nil
        }
        if let failure { throw CommandError("\(path): writing failed (\(String(cString: strerror(failure))))") }
    }

    /// The POSIX reason inside a Foundation error, when it carries one.
    private static func reason(_ error: Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let code = underlying?.code, underlying?.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(code))) }
        return (error as NSError).localizedDescription
    }
}
