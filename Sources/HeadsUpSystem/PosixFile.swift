import Glibc

/// The one seam to the operating system's file calls: every open, read,
/// write, fsync and close goes through here and comes back as a
/// ``SystemCallError`` naming the path.
package struct PosixFile {
    package let descriptor: Int32
    package let path: String

    /// A descriptor opened elsewhere (standard input).
    package init(descriptor: Int32, path: String) { (self.descriptor, self.path) = (descriptor, path) }

    package enum Mode {
        case read
        /// Create a new file; fail with EEXIST rather than overwrite one.
        case createNew
    }

    package static func open(_ path: String, _ mode: Mode) throws(SystemCallError) -> PosixFile {
        let descriptor: Int32
        switch mode {
        case .read: descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        case .createNew: descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        }
        guard descriptor >= 0 else { throw SystemCallError(call: "open", path: path, errno: Glibc.errno) }
        if mode == .read {
            var info = stat()
            if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
                _ = Glibc.close(descriptor)
                throw SystemCallError(call: "open", path: path, errno: EISDIR)
            }
        }
        return PosixFile(descriptor: descriptor, path: path)
    }

    /// Reads up to `buffer.count` bytes; 0 means end of file.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if Glibc.errno == EINTR { continue }
            throw SystemCallError(call: "read", path: path, errno: Glibc.errno)
        }
    }

    /// One write(2), retried on interruption; returns how many bytes went out.
    package func writeSome(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
        guard bytes.count > 0 else { return 0 }
        while true {
            let count = Glibc.write(descriptor, bytes.baseAddress!, bytes.count)
            if count >= 0 { return count }
            if Glibc.errno == EINTR { continue }
            throw SystemCallError(call: "write", path: path, errno: Glibc.errno)
        }
    }

    package func sync() throws(SystemCallError) {
        guard fsync(descriptor) == 0 else { throw SystemCallError(call: "fsync", path: path, errno: Glibc.errno) }
    }

    package func close() throws(SystemCallError) {
        guard Glibc.close(descriptor) == 0 else { throw SystemCallError(call: "close", path: path, errno: Glibc.errno) }
    }

    /// Makes a newly created file's directory entry durable too.
    package static func syncDirectory(containing path: String) {
        let directory = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let descriptor = Glibc.open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = Glibc.close(descriptor)
    }
}
