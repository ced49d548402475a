import Glibc

/// A file descriptor that becomes readable when a producer thread has
/// something for a consumer that blocks in poll(2) on several inputs at
/// once (the live loop: sensors, D-Bus, the control socket). A non-blocking
/// pipe: `raise` writes a byte, `clear` drains them. Raising an already
/// raised signal costs one write and wakes no one twice.
public final class ReadinessSignal: @unchecked Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    public init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Readable while raised; nil when the pipe could not be made (the
    /// consumer then falls back to waiting with a timeout).
    public var descriptor: Int32? { readEnd >= 0 ? readEnd : nil }

    public func raise() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)  // EAGAIN: the pipe is full, so it is raised already
    }

    /// Called on every pass of the live loop: drains into a stack buffer, no allocation.
    public func clear() {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { buffer in
            while read(readEnd, buffer.baseAddress, buffer.count) > 0 {}
        }
    }
}

/// Blocks until one of `descriptors` is readable or `timeout` seconds pass.
/// Returns false on the timeout. An interrupted wait (a signal) returns true:
/// the caller's loop looks again.
@discardableResult
public func waitUntilReadable(_ descriptors: [Int32], timeout: Double) -> Bool {
    var entries = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    let milliseconds = Int32(max(0, min(timeout, 3600)) * 1000)
    let ready = poll(&entries, nfds_t(entries.count), milliseconds)
    return ready != 0
}
