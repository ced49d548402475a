import Foundation
import Glibc

/// The daemon's end of the control socket: a Unix stream socket that the
/// live loop serves between steps, without blocking. Each client sends one
/// request line and gets one response line; a client that says nothing
/// within half a second is dropped.
public final class ControlSocket {
    public let path: String
    private let descriptor: Int32

    /// Binds the socket (replacing a stale one from a crashed run) with
    /// mode 0660: the owner and the service's group may snooze.
    public init(path: String) throws(ControlError) {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        } catch {
            throw .socket(path, "cannot create its folder (\(error))")
        }
        if ControlClient.isListening(path) { throw .socket(path, "another HeadsUp daemon is already listening there") }
        unlink(path)
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socket(path, String(cString: strerror(errno))) }
        let bound = UnixAddress.with(path) { address, length in bind(descriptor, address, length) }
        guard let bound, bound == 0, chmod(path, 0o660) == 0, listen(descriptor, 8) == 0 else {
            let why = bound == nil ? "the path is too long for a socket" : String(cString: strerror(errno))
            close(descriptor)
            throw .socket(path, why)
        }
    }

    deinit {
        close(descriptor)
        unlink(path)
    }

    /// For the live loop's wait: readable when a client connects.
    public var fileDescriptor: Int32 { descriptor }

    /// Answers every client that is waiting, through `handle`.
    public func serve(_ handle: (ControlRequest) -> ControlResponse) {
        while true {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }  // EAGAIN: nobody else is waiting
            defer { close(client) }
            _ = fcntl(client, F_SETFD, FD_CLOEXEC)
            // Linux does not pass the listening socket's O_NONBLOCK on to accepted ones; the timeouts bound each client.
            var timeout = timeval(tv_sec: 0, tv_usec: 500_000)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let response: ControlResponse
            guard let line = ControlClient.readLine(client) else { continue }  // a probe, or a client that gave up
            if let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)) {
                response = handle(request)
            } else {
                response = ControlResponse(error: "not a HeadsUp control request (one JSON line)")
            }
            ControlClient.writeLine(client, response)
        }
    }
}

/// The commands' end: connect, ask, read the answer.
public enum ControlClient {
    public static func send(_ request: ControlRequest, to path: String, timeout: Double = 5) throws(ControlError) -> ControlResponse {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socket(path, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var wait = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1e6))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        let connected = UnixAddress.with(path) { address, length in connect(descriptor, address, length) }
        guard let connected else { throw .socket(path, "the path is too long for a socket") }
        guard connected == 0 else {
            throw .notRunning(path, errno == ENOENT || errno == ECONNREFUSED ? "no daemon is listening" : String(cString: strerror(errno)))
        }
        let data = (try? JSONEncoder().encode(request)) ?? Data()
        writeLine(descriptor, String(decoding: data, as: UTF8.self))
        guard let line = readLine(descriptor) else { throw .socket(path, "the daemon did not answer within \(timeout) s") }
        do { return try JSONDecoder().decode(ControlResponse.self, from: Data(line.utf8)) } catch {
            throw .socket(path, "the answer is not a HeadsUp control response")
        }
    }

    static func isListening(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(descriptor) }
        return UnixAddress.with(path) { address, length in connect(descriptor, address, length) } == 0
    }

    /// One line, at most 64 KiB; nil on timeout or a closed connection.
    static func readLine(_ descriptor: Int32) -> String? {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while bytes.count < 1 << 16 {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { return nil }
            bytes += buffer[0..<count]
            if let newline = bytes.firstIndex(of: 10) { return String(decoding: bytes[..<newline], as: UTF8.self) }
        }
        return nil
    }

    static func writeLine(_ descriptor: Int32, _ response: ControlResponse) {
        let data = (try? JSONEncoder().encode(response)) ?? Data("{}".utf8)
        writeLine(descriptor, String(decoding: data, as: UTF8.self))
    }

    static func writeLine(_ descriptor: Int32, _ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            // MSG_NOSIGNAL: a client that hung up is an error here, not a SIGPIPE that ends the daemon.
            let written = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            offset += written
        }
    }
}

/// sockaddr_un for a path.
enum UnixAddress {
    /// Calls `body` with the address, or returns nil when the path does not fit.
    static func with(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard bytes.count < capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// Why the control socket could not be used.
public enum ControlError: Error, Sendable, CustomStringConvertible {
    case socket(String, String)
    case notRunning(String, String)

    public var description: String {
        switch self {
        case .socket(let path, let why): "control socket \(path): \(why)"
        case .notRunning(let path, let why):
            "\(why) at \(path). Is `headsup live` running? (It serves that socket; HEADSUP_CONTROL_SOCKET names another.)"
        }
    }
}
