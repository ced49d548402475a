import Foundation
import Glibc

/// Debian's real `mosquitto` broker on loopback, on a port of its own, for
/// the MQTT tests. It persists sessions and retained messages to its folder,
/// so `restart()` behaves like a broker that was restarted in the field.
public final class MosquittoBroker: @unchecked Sendable {
    public static let executable = "/usr/sbin/mosquitto"

    /// Why this machine cannot run broker tests, or `nil` when it can.
    public static var unavailableReason: String? {
        for program in [executable, "/usr/bin/mosquitto_sub", "/usr/bin/mosquitto_passwd"]
        where !FileManager.default.isExecutableFile(atPath: program) {
            return "\(program) is missing (make test installs Debian's mosquitto and mosquitto-clients)"
        }
        return nil
    }

    public let port: Int
    public let directory: TemporaryDirectory
    private var process: BackgroundProcess?

    /// `users` maps user names to passwords; with none, anyone may connect.
    /// With `tls`, it speaks only TLS, with a certificate for 127.0.0.1 from
    /// a certificate authority of its own (`caFile`).
    public init(users: [String: String] = [:], tls: Bool = false) throws {
        directory = try TemporaryDirectory()
        port = try Self.freePort()
        usesTLS = tls
        // As root, mosquitto would switch to the "mosquitto" user, who cannot write this folder.
        let user = getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "root"
        var config = [
            "user \(user)", "listener \(port) 127.0.0.1", "persistence true", "persistence_location \(directory.url.path)/",
            "log_dest file \(directory.path("broker.log"))", "log_type all",
        ]
        if users.isEmpty {
            config.append("allow_anonymous true")
        } else {
            let passwords = directory.path("passwords")
            for (index, (user, password)) in users.enumerated() {
                let create = index == 0 ? ["-c"] : []
                let result = try runProcess("/usr/bin/mosquitto_passwd", ["-b"] + create + [passwords, user, password])
                guard result.status == 0 else { throw CapabilityMissing(reason: "mosquitto_passwd failed: \(result.standardError)") }
            }
            config += ["allow_anonymous false", "password_file \(passwords)"]
        }
        if tls {
            try makeCertificates()
            config += ["cafile \(caFile)", "certfile \(directory.path("server.crt"))", "keyfile \(directory.path("server.key"))"]
        }
        try (config.joined(separator: "\n") + "\n").write(toFile: directory.path("mosquitto.conf"), atomically: true, encoding: .utf8)
        try start()
    }

    public let usesTLS: Bool
    public var url: String { "\(usesTLS ? "mqtts" : "mqtt")://127.0.0.1:\(port)" }
    /// The certificate authority that signed the broker's certificate.
    public var caFile: String { directory.path("ca.crt") }

    /// A throwaway certificate authority and a server certificate for 127.0.0.1, by openssl.
    private func makeCertificates() throws {
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=HeadsUp test CA",
                "-keyout", directory.path("ca.key"), "-out", caFile,
            ],
            [
                "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
                "-keyout", directory.path("server.key"), "-out", directory.path("server.csr"),
            ],
            [
                "x509", "-req", "-in", directory.path("server.csr"), "-CA", caFile, "-CAkey", directory.path("ca.key"),
                "-CAcreateserial", "-days", "2", "-out", directory.path("server.crt"), "-extfile", directory.path("san.cnf"),
            ],
        ]
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: directory.path("san.cnf"), atomically: true, encoding: .utf8)
        for arguments in steps {
            let result = try runProcess("/usr/bin/openssl", arguments)
            guard result.status == 0 else { throw CapabilityMissing(reason: "openssl \(arguments[0]) failed: \(result.standardError)") }
        }
    }
    public var log: String { (try? String(contentsOfFile: directory.path("broker.log"), encoding: .utf8)) ?? "" }

    public func start() throws {
        let broker = try BackgroundProcess.unblockingSignals(Self.executable, ["-c", directory.path("mosquitto.conf")], environment: [:])
        process = broker
        guard waitForListening(timeout: 10) else { throw CapabilityMissing(reason: "mosquitto did not listen on port \(port): \(log)") }
    }

    /// Stops the broker the way a service manager does (SIGTERM: it saves
    /// its persistence file) and waits for it to exit.
    public func stop() {
        process?.terminate()
        process?.finish(timeout: 10)
        process = nil
    }

    public func restart() throws {
        stop()
        try start()
    }

    deinit { stop() }

    /// A subscriber (`mosquitto_sub`, QoS 1, a persistent session) printing
    /// "topic payload" lines; its session outlives a broker restart.
    public func subscribe(_ topics: [String], clientID: String = "headsup-test-subscriber") throws -> BackgroundProcess {
        var arguments = ["-h", "127.0.0.1", "-p", String(port), "-q", "1", "-c", "-i", clientID, "-v"]
        if usesTLS { arguments += ["--cafile", caFile] }
        for topic in topics { arguments += ["-t", topic] }
        let subscriber = try BackgroundProcess("/usr/bin/mosquitto_sub", arguments, environment: [:])
        // The broker logs the subscription; after that, nothing published is missed.
        let deadline = Date().addingTimeInterval(10)
        while !log.contains("\(clientID) 1 \(topics.last ?? "")"), Date() < deadline { usleep(20_000) }
        guard log.contains("\(clientID) 1 \(topics.last ?? "")") else { throw CapabilityMissing(reason: "mosquitto_sub did not subscribe: \(log)") }
        return subscriber
    }

    private func waitForListening(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if Self.canConnect(port: port) { return true }
            usleep(20_000)
        }
        return false
    }

    private static func canConnect(port: Int) -> Bool {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return false }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// A port the kernel just handed out, closed again for the broker to take.
    private static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw CapabilityMissing(reason: "no free loopback port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
