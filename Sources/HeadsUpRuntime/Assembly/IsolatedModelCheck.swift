import Foundation
import Glibc
import HeadsUpData
import HeadsUpKernels
import HeadsUpModel
import HeadsUpSystem

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

    /// Loads the model through the child: it reads the file with libhdf5
    /// and hands the config and arrays over as bytes, so this process never
    /// calls libhdf5 on the file. A child killed by a signal, or out of time,
    /// is a typed error; so is the child's own error, worded as it gave it.
    package func load(
        path: String, architecture: String? = nil, engine: KerasModelLoader.Engine = .fast, kernels: KernelTable = .best
    ) throws(ModelLoadError) -> KerasModel {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments(path: path, architecture: architecture) + ["--transfer"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        // A crash is expected now and then: no backtrace, which takes a while and says nothing here.
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        do { try process.run() } catch { throw ModelLoadError(file: path, problem: .checkFailed("cannot start \(executable): \(error)")) }
        // Drain both pipes while waiting, so a large model never blocks the child on a full pipe.
        let collected = Collected()
        let readers = [output, errors].enumerated().map { index, pipe in
            let thread = Thread { collected.set(index, pipe.fileHandleForReading.readDataToEndOfFile()) }
            thread.start()
            return thread
        }
        let clock = SystemMonotonicClock()
        let deadline = clock.now() + timeout + 5
        while process.isRunning, clock.now() < deadline { usleep(2_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw ModelLoadError(file: path, problem: .checkFailed("reading it took longer than \(Int(timeout)) s"))
        }
        while readers.contains(where: { !$0.isFinished }) { usleep(1_000) }
        if process.terminationReason == .uncaughtSignal {
            throw ModelLoadError(file: path, problem: .crashedReading(signal: process.terminationStatus))
        }
        guard process.terminationStatus == 0 else {
            let message = String(decoding: collected.get(1), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            let text = message.hasPrefix("Error: ") ? String(message.dropFirst("Error: ".count)) : message
            throw ModelLoadError(
                file: path, problem: .reportedByCheck(text.isEmpty ? "\(path): the check failed (exit status \(process.terminationStatus))" : text))
        }
        return try KerasModelLoader.assemble(try ModelParts.decode([UInt8](collected.get(0)), path: path), engine: engine, kernels: kernels)
    }

    /// What the pipe readers collected, one slot per pipe.
    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var data: [Int: Data] = [:]
        func set(_ index: Int, _ value: Data) { lock.withLock { data[index] = value } }
        func get(_ index: Int) -> Data { lock.withLock { data[index] ?? Data() } }
    }
}
