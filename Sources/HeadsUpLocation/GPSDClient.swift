import Glibc
import HeadsUpCrossings
import HeadsUpSystem
import Logging

/// Positions from gpsd (a board with a GPS receiver and no desktop): its
/// JSON protocol on a TCP socket (localhost:2947), `?WATCH={"enable":true,"json":true}`,
/// then a TPV report per fix (``GPSDReport``).
///
/// Not running, no fix, fixes, and gpsd closing the connection are named
/// states (``GPSDState``); the client connects again every `retryInterval`.
/// The socket is non-blocking: ``poll()`` never waits, and the live loop
/// waits on ``readinessDescriptors`` with its other inputs.
public final class GPSDClient {
    public struct Options: Sendable {
        public var host = "127.0.0.1"
        public var port: UInt16 = 2947
        /// Seconds between attempts while gpsd is away.
        public var retryInterval = 5.0
        /// The longest line kept (a SKY report with many satellites is a few kB).
        public var maximumLine = 64 * 1024
        public init() {}
    }

    public struct Counters: Sendable, Equatable {
        public var reports = 0
        public var fixes = 0
        public var connections = 0
    }

    public let options: Options
    private let clock: any MonotonicClock
    private let wallClock: any WallClock
    private let logger: Logger
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []
    /// One read's bytes; allocated once, not on every poll.
    private var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    private var nextAttempt = -Double.infinity
    public private(set) var state = GPSDState.connecting
    public private(set) var counters = Counters()

    public init(options: Options = Options(), clock: any MonotonicClock, wallClock: any WallClock, logger: Logger) {
        self.options = options
        self.clock = clock
        self.wallClock = wallClock
        self.logger = logger
    }

    deinit { close() }

    public func start() { connect() }

    public func stop() { close() }

    public var readinessDescriptors: [Int32] { socket >= 0 ? [socket] : [] }

    /// The fixes that arrived; connects again when due.
    public func poll() -> [LocationFix] {
        if socket < 0 {
            if clock.now() >= nextAttempt { connect() }
            if socket < 0 { return [] }
        }
        var fixes: [LocationFix] = []
        // At most 64 chunks a pass: a peer that floods the socket waits for the next pass.
        var reads = 0
        while socket >= 0, reads < 64 {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                reads += 1
                buffer += chunk[0..<count]
                continue
            }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { break }
            // 0: gpsd closed the connection; < 0: it failed.
            close()
            state = .restarting
            nextAttempt = clock.now() + options.retryInterval
        }
        // Every whole line, then the consumed bytes dropped once (not per line: a flood of short lines stays linear).
        var start = buffer.startIndex
        while let newline = buffer[start...].firstIndex(of: 0x0A) {
            let line = String(decoding: buffer[start..<newline], as: UTF8.self)
            start = newline + 1
            counters.reports += 1
            switch GPSDReport.parse(line[...], monotonicNow: clock.now(), wallNow: wallClock.secondsSince1970()) {
            case .fix(let fix):
                counters.fixes += 1
                state = .fixes
                fixes.append(fix)
            case .noFix:
                state = .noFix
            case .other:
                break
            }
        }
        buffer.removeSubrange(..<start)
        // A line that never ends is not gpsd's: drop it rather than grow.
        if buffer.count > options.maximumLine { buffer.removeAll() }
        return fixes
    }

    private func connect() {
        close()
        nextAttempt = clock.now() + options.retryInterval
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else {
            state = .notRunning("socket: \(String(cString: strerror(errno)))")
            return
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = options.port.bigEndian
        guard inet_pton(AF_INET, options.host, &address.sin_addr) == 1 else {
            Glibc.close(descriptor)
            state = .notRunning("\(options.host) is not an IPv4 address")
            return
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            if state != .restarting { state = .notRunning(reason) }
            return
        }
        let watch = Array(#"?WATCH={"enable":true,"json":true};"#.utf8) + [0x0A]
        guard watch.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == watch.count else {
            Glibc.close(descriptor)
            state = .notRunning("could not ask gpsd to watch")
            return
        }
        socket = descriptor
        buffer.removeAll()
        counters.connections += 1
        state = .noFix
        logger.debug("gpsd: connected to \(options.host):\(options.port)")
    }

    private func close() {
        if socket >= 0 { Glibc.close(socket) }
        socket = -1
    }
}

/// What the gpsd client is doing, named for the log and `status`.
public enum GPSDState: Sendable, Equatable, CustomStringConvertible {
    case connecting
    /// Nobody answers on the port.
    case notRunning(String)
    /// Connected; the receiver has no fix (or none has come yet).
    case noFix
    case fixes
    /// gpsd closed the connection; connecting again.
    case restarting

    public var description: String {
        switch self {
        case .connecting: "connecting to gpsd"
        case .notRunning(let why): "gpsd is not running (\(why)); start gpsd with the GPS receiver, or set location.source: none"
        case .noFix: "gpsd: no fix yet"
        case .fixes: "receiving fixes from gpsd"
        case .restarting: "gpsd closed the connection; connecting again"
        }
    }
}
