import Foundation
import Glibc
import HeadsUpSystem

/// The daemon's end of the control socket: a Unix stream socket served on
/// a thread of its own (`start`), off the scoring path. Each client sends
/// one request line and gets one response line. A client has
/// `requestDeadline` seconds from connecting to send its whole line, one
/// deadline that no byte renews (a client dripping a byte at a time is
/// dropped, and it never held up the live loop); the request then goes to
/// the live loop through the `ControlInbox` with the peer's uid and pid
/// (SO_PEERCRED), and its answer comes back here to be written.
public final class ControlSocket: @unchecked Sendable {
    public let path: String
    private let descriptor: Int32
    private let server: ControlServer

    /// Seconds from connecting to the end of the request line.
    public static let requestDeadline = 1.0
    /// Seconds a request waits for the live loop's answer before the client hears that the daemon is busy.
    public static let answerDeadline = 5.0
    /// Clients served at once; more are closed as they arrive.
    public static let maximumClients = 16

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
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .socket(path, String(cString: strerror(errno))) }
        let bound = UnixAddress.with(path) { address, length in bind(descriptor, address, length) }
        guard let bound, bound == 0, chmod(path, 0o660) == 0, listen(descriptor, 8) == 0 else {
            let why = bound == nil ? "the path is too long for a socket" : String(cString: strerror(errno))
            close(descriptor)
            throw .socket(path, why)
        }
        self.descriptor = descriptor
        server = ControlServer(listener: descriptor)
    }

    deinit {
        server.stop()
        close(descriptor)
        unlink(path)
    }

    /// Serves clients on a thread of its own, posting their requests to `inbox`.
    public func start(posting inbox: ControlInbox) { server.start(posting: inbox) }

    /// Stops serving (the socket stays bound until the value goes away).
    public func stop() { server.stop() }

    /// Clients dropped for missing their deadline or for being one too many.
    public var droppedClients: Int { server.droppedClients }
}

/// The control socket's thread: one poll(2) over the listening socket, the
/// clients and a wake-up pipe, each client on its own deadline.
final class ControlServer: @unchecked Sendable {
    private struct Client {
        var descriptor: Int32
        var deadline: Double
        var bytes: [UInt8] = []
        var origin: ControlOrigin
        /// Its request is with the live loop.
        var awaiting = false
    }

    private let listener: Int32
    private let wake = ReadinessSignal()
    private let clock = SystemMonotonicClock()
    private let lock = NSLock()
    private var answers: [(id: Int, response: ControlResponse)] = []
    private var stopping = false
    private var thread: Thread?
    private var dropped = 0

    init(listener: Int32) { self.listener = listener }

    var droppedClients: Int {
        lock.lock()
        defer { lock.unlock() }
        return dropped
    }

    func start(posting inbox: ControlInbox) {
        lock.lock()
        defer { lock.unlock() }
        guard thread == nil, !stopping else { return }
        let thread = Thread { [self] in run(inbox) }
        thread.name = "headsup-control"
        self.thread = thread
        thread.start()
    }

    func stop() {
        lock.lock()
        stopping = true
        let thread = self.thread
        lock.unlock()
        wake.raise()
        while let thread, !thread.isFinished { usleep(2000) }
    }

    private var isStopping: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    private func answered(_ id: Int, _ response: ControlResponse) {
        lock.lock()
        answers.append((id, response))
        lock.unlock()
        wake.raise()
    }

    private func countDropped() {
        lock.lock()
        dropped += 1
        lock.unlock()
    }

    private func run(_ inbox: ControlInbox) {
        var clients: [Int: Client] = [:]
        var nextID = 0
        func drop(_ id: Int) {
            if let client = clients.removeValue(forKey: id) { close(client.descriptor) }
        }
        defer { for id in Array(clients.keys) { drop(id) } }
        while !isStopping {
            lock.lock()
            let ready = answers
            answers.removeAll()
            lock.unlock()
            for (id, response) in ready {
                guard let client = clients[id] else { continue }
                ControlClient.writeLine(client.descriptor, response)
                drop(id)
            }
            var now = clock.now()
            for (id, client) in clients where now >= client.deadline {
                if client.awaiting { ControlClient.writeLine(client.descriptor, ControlResponse(error: "the daemon is busy; try again")) }
                countDropped()
                drop(id)
            }
            let reading = clients.filter { !$0.value.awaiting }
            let soonest = clients.values.map(\.deadline).min().map { max(0, $0 - now) } ?? 1
            var entries = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            if let wakeDescriptor = wake.descriptor { entries.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)) }
            let readingIDs = Array(reading.keys)
            for id in readingIDs { entries.append(pollfd(fd: reading[id]!.descriptor, events: Int16(POLLIN), revents: 0)) }
            let milliseconds = Int32(min(1000, (soonest * 1000).rounded(.up)))
            guard poll(&entries, nfds_t(entries.count), milliseconds) > 0 else { continue }
            wake.clear()
            now = clock.now()
            if entries[0].revents != 0 {
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else { break }  // EAGAIN: nobody else is waiting
                    // Linux does not pass the listening socket's O_NONBLOCK on to accepted ones.
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                    guard clients.count < ControlSocket.maximumClients else {
                        close(client)
                        countDropped()
                        continue
                    }
                    clients[nextID] = Client(descriptor: client, deadline: now + ControlSocket.requestDeadline, origin: Self.peer(of: client))
                    nextID += 1
                }
            }
            let first = entries.count - readingIDs.count
            for (offset, id) in readingIDs.enumerated() where entries[first + offset].revents != 0 {
                guard var client = clients[id] else { continue }
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = read(client.descriptor, &buffer, buffer.count)
                if count < 0, errno == EAGAIN || errno == EINTR { continue }
                guard count > 0 else {
                    drop(id)  // a probe, or a client that gave up
                    continue
                }
                client.bytes += buffer[0..<count]
                guard let newline = client.bytes.firstIndex(of: 10) else {
                    if client.bytes.count >= 1 << 16 { drop(id) } else { clients[id] = client }
                    continue
                }
                let line = String(decoding: client.bytes[..<newline], as: UTF8.self)
                guard let request = try? JSONDecoder().decode(ControlRequest.self, from: Data(line.utf8)) else {
                    ControlClient.writeLine(client.descriptor, ControlResponse(error: "not a HeadsUp control request (one JSON line)"))
                    drop(id)
                    continue
                }
                client.awaiting = true
                client.deadline = now + ControlSocket.answerDeadline
                clients[id] = client
                inbox.post(request, from: client.origin) { [weak self] response in self?.answered(id, response) }
            }
        }
    }

    /// The peer's uid and pid, as the kernel recorded them at connect(2).
    static func peer(of descriptor: Int32) -> ControlOrigin {
        // struct ucred: pid_t pid, uid_t uid, gid_t gid.
        var credentials: (Int32, UInt32, UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout.size(ofValue: credentials))
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return .peer(uid: UInt32.max, pid: -1) }
        return .peer(uid: credentials.1, pid: credentials.0)
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
