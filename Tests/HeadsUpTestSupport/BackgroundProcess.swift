import Foundation
import Glibc

/// A program running in the background whose output lines can be awaited.
/// Its output goes to files (not pipes), so nothing is lost when it ends
/// and it never blocks on a full pipe.
public final class BackgroundProcess: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let directory: TemporaryDirectory
    private let outputPath: String
    private let errorPath: String

    public init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        directory = try TemporaryDirectory()
        outputPath = directory.path("stdout")
        errorPath = directory.path("stderr")
        _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardInput = input
        process.standardOutput = FileHandle(forWritingAtPath: outputPath)
        process.standardError = FileHandle(forWritingAtPath: errorPath)
        try process.run()
    }

    /// A daemon that must see SIGTERM: Foundation's `Process` passes on the
    /// test process's blocked signals, so this starts it through Python,
    /// which clears the signal mask and then becomes the program.
    public static func unblockingSignals(_ executable: String, _ arguments: [String], environment: [String: String]) throws
        -> BackgroundProcess
    {
        let exec = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        return try BackgroundProcess("/usr/bin/python3", ["-c", exec, executable] + arguments, environment: environment)
    }

    public var standardOutput: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
    public var standardError: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

    /// Waits until `text` appears on standard output or error, up to `timeout` seconds.
    @discardableResult
    public func wait(for text: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if standardOutput.contains(text) || standardError.contains(text) { return true }
            usleep(20_000)
        }
        return false
    }

    public func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits for the process to end (killing it after `timeout`).
    @discardableResult
    public func finish(timeout: Double) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    public func interrupt() { process.interrupt() }

    /// SIGKILL: the process vanishes without a word, as on a power cut.
    public func killAbruptly() { kill(process.processIdentifier, SIGKILL) }

    /// SIGTERM, what a service manager sends.
    public func terminate() { process.terminate() }

    public var isRunning: Bool { process.isRunning }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
