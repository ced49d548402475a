import Foundation
import Glibc
import HeadsUpData
import HeadsUpModel

/// Loads a model file first in a short-lived child process (`headsup model
/// check`), with a time and memory limit, so a file that crashes libhdf5
/// (some damaged files do, with no error to catch) kills the child, not the
/// daemon, and becomes a typed error. The caller loads the file itself
/// only after the child succeeded.
public struct IsolatedModelCheck: Sendable {
    /// The `headsup` executable to run as the child.
    public var executable: String
    /// Seconds the child may take.
    public var timeout: Double
    /// Bytes of address space the child may use.
    public var memoryLimit: Int

    public static let defaultTimeout = 30.0
    public static let defaultMemoryLimit = 4 << 30

    public init(executable: String, timeout: Double = defaultTimeout, memoryLimit: Int = defaultMemoryLimit) {
        self.executable = executable
        self.timeout = timeout
        self.memoryLimit = memoryLimit
    }

    /// The running executable (`/proc/self/exe`), as the child.
    public static func currentExecutable() -> IsolatedModelCheck? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return IsolatedModelCheck(executable: path)
    }

    /// The arguments `headsup` takes for the child's side.
    public func arguments(path: String, architecture: String?) -> [String] {
        ["model", "check", path, "--memory-limit", String(memoryLimit), "--time-limit", String(Int(timeout.rounded(.up)))]
            + (architecture.map { ["--config", $0] } ?? [])
    }

    /// Runs the child. Returns when it ended on its own, loaded or with the
    /// typed error the caller's own load will report again; throws when it
    /// was killed by a signal or ran out of time.
    public func check(path: String, architecture: String? = nil) throws(ModelLoadError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments(path: path, architecture: architecture)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        // A crash is expected now and then: no backtrace, which takes a while and says nothing here.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        do { try process.run() } catch { throw ModelLoadError(file: path, problem: .checkFailed("cannot start \(executable): \(error)")) }
        let clock = SystemMonotonicClock()
        let deadline = clock.now() + timeout + 5
        while process.isRunning, clock.now() < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ModelLoadError(file: path, problem: .checkFailed("reading it took longer than \(Int(timeout)) s"))
        }
        _ = errors.fileHandleForReading.readDataToEndOfFile()
        if process.terminationReason == .uncaughtSignal {
            throw ModelLoadError(file: path, problem: .crashedReading(signal: process.terminationStatus))
        }
    }
}
