import Foundation
import Glibc
import HeadsUpSystem

/// Runs a program (no shell) for each warning, with the details in its
/// environment (HEADSUP_TITLE, HEADSUP_BODY, HEADSUP_TIME and one
/// HEADSUP_<FIELD> per field), killed after `timeout` seconds.
public final class CommandSink: NotificationSink {
    public let name: String
    public let arguments: [String]
    public let timeout: Double

    /// Seconds a command may run before it is stopped.
    public static let defaultTimeout = 5.0

    public init(arguments: [String], timeout: Double = defaultTimeout) {
        precondition(!arguments.isEmpty)
        self.arguments = arguments
        self.timeout = timeout
        name = "command \(arguments[0])"
    }

    public func deliver(_ notification: NotificationMessage) throws {
        let process = Process()
        let program = arguments[0]
        process.executableURL = URL(fileURLWithPath: program.contains("/") ? program : try Self.resolve(program))
        process.arguments = Array(arguments.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["HEADSUP_TITLE"] = notification.title
        environment["HEADSUP_BODY"] = notification.body
        environment["HEADSUP_TIME"] = String(notification.time)
        for (key, value) in notification.fields { environment["HEADSUP_" + key.uppercased()] = value }
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        // Woken when the program ends, not by polling it.
        let exit = ProcessExit()
        process.terminationHandler = { _ in exit.record() }
        do {
            try process.run()
        } catch {
            throw SinkError(sink: name, message: "cannot run \(program): \(error.localizedDescription)")
        }
        if !exit.wait(until: SystemMonotonicClock().now() + timeout) {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw SinkError(sink: name, message: "timed out after \(timeout) s and was killed")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SinkError(sink: name, message: "exited with status \(process.terminationStatus)")
        }
    }

    static func resolve(_ program: String) throws -> String {
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        throw SinkError(sink: "command \(program)", message: "not found on PATH")
    }
}

/// A program's end, signalled by its termination handler.
private final class ProcessExit: @unchecked Sendable {
    private let condition = MonotonicCondition()
    private var ended = false

    func record() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the program ended before `deadline` (monotonic seconds).
    func wait(until deadline: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !ended, condition.wait(until: deadline) {}
        return ended
    }
}
