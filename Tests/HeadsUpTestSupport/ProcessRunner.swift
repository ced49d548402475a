import Foundation

/// The result of running a program to completion.
public struct ProcessOutput: Sendable {
    /// The exit status, or the signal number when `terminationSignal` is set.
    public var status: Int32
    /// The signal that killed the process, if one did.
    public var terminationSignal: Int32? = nil
    public var standardOutput: String
    public var standardError: String
}

/// Runs `executable` with `arguments` and collects its output.
public func runProcess(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws
    -> ProcessOutput
{
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
    nonisolated(unsafe) var errorData = Data()
    let errorReader = Thread { errorData = error.fileHandleForReading.readDataToEndOfFile() }
    errorReader.start()
    let outputData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while !errorReader.isFinished { usleep(1000) }
    return ProcessOutput(
        status: process.terminationStatus, terminationSignal: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil,
        standardOutput: String(decoding: outputData, as: UTF8.self),
        standardError: String(decoding: errorData, as: UTF8.self))
}

/// Runs the built `headsup` command.
public func runHeadsUp(_ arguments: [String], environment: [String: String]? = nil) throws -> ProcessOutput {
    try runProcess(TestEnvironment.productsDirectory.appendingPathComponent("headsup").path, arguments, environment: environment)
}
