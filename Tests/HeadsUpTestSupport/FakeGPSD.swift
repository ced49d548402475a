import Foundation
import Testing

/// A stand-in gpsd on loopback (Tests/Harness/fake_gpsd.py) on a free port:
/// `send` drives it ("fix LAT LON EPH SPEED TRACK", "nofix", "junk", "close").
public final class FakeGPSD {
    public static let python = "/usr/bin/python3"
    public let process: BackgroundProcess
    public let port: UInt16
    private let directory: TemporaryDirectory

    public init() throws {
        try requireCapability(FileManager.default.isExecutableFile(atPath: Self.python), "\(Self.python) is missing")
        directory = try TemporaryDirectory()
        let portFile = directory.path("port")
        process = try BackgroundProcess(
            Self.python, [TestEnvironment.path("Tests/Harness/fake_gpsd.py"), portFile], environment: ProcessInfo.processInfo.environment)
        guard eventually(10, { FileManager.default.fileExists(atPath: portFile) }),
            let port = UInt16((try? String(contentsOfFile: portFile, encoding: .utf8)) ?? "")
        else {
            throw CapabilityMissing(reason: "the stand-in gpsd did not start: \(process.standardError)")
        }
        self.port = port
    }

    public func send(_ command: String) { process.send(command) }

    /// Stops it: nobody answers on the port.
    public func stop() {
        process.terminate()
        _ = process.finish(timeout: 5)
    }
}
