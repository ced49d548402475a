import Glibc

/// A failed operating-system call, with the path it was about, so a message
/// can say what to do ("permission denied" on a file is a different fix from
/// "no space left").
public struct SystemCallError: Error, Equatable, CustomStringConvertible {
    public var call: String
    public var path: String
    public var errno: Int32

    public init(call: String, path: String, errno: Int32) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    public var description: String {
        let reason = String(cString: strerror(errno))
        switch errno {
        case ENOENT: return "\(path): no such file or directory"
        case EACCES, EPERM: return "\(path): permission denied (\(call)); check the file's owner and mode"
        case EEXIST: return "\(path): already exists; choose another name (recordings are never overwritten)"
        case ENOSPC: return "\(path): no space left on the device (\(call))"
        case EISDIR: return "\(path): is a directory"
        default: return "\(path): \(call) failed: \(reason)"
        }
    }
}
