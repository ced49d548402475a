import Foundation

/// A private dbus-daemon for tests, playing the system or session bus: the
/// code under test reaches it through DBUS_SYSTEM_BUS_ADDRESS /
/// DBUS_SESSION_BUS_ADDRESS, and python-dbusmock plays the services on it.
public final class PrivateDBus {
    public let address: String
    private let process: Process
    private let directory: TemporaryDirectory

    /// Why this machine cannot run D-Bus tests, or `nil` when it can.
    public static var unavailableReason: String? {
        let fileManager = FileManager.default
        guard fileManager.isExecutableFile(atPath: "/usr/bin/dbus-daemon") else {
            return "dbus-daemon is not installed (make test installs Debian's dbus)"
        }
        guard fileManager.isExecutableFile(atPath: python) else { return "\(python) is missing" }
        guard let check = try? runProcess(python, ["-c", "import dbus, dbusmock"]), check.status == 0 else {
            return "python3-dbusmock and python3-dbus are not installed for \(python) (make test installs them)"
        }
        return nil
    }

    /// Debian's interpreter, which has python3-dbus and python3-dbusmock.
    public static let python = "/usr/bin/python3"

    public init() throws {
        directory = try TemporaryDirectory()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        process.arguments = ["--session", "--nofork", "--print-address=1", "--address=unix:dir=\(directory.url.path)"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let handle = output.fileHandleForReading
        while !text.contains("\n") {
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        address = text.split(separator: "\n").first.map(String.init) ?? ""
        guard address.hasPrefix("unix:") else {
            process.terminate()
            throw CapabilityMissing(reason: "dbus-daemon did not print its address")
        }
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The environment for a process that should see this bus as the system bus and session bus.
    public var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = address
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        return environment
    }
}
