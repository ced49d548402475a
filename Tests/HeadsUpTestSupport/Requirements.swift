import Foundation
import Testing

/// Where the tests run and what they may use.
public enum TestEnvironment {
    /// CI sets CI=true; there, a test that cannot run is a failure, not a skip.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The repository's top folder, found from this file's location.
    public static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A path inside the repository.
    public static func path(_ relative: String) -> String {
        repositoryRoot.appendingPathComponent(relative).path
    }

    /// `environment` (by default this process's) with no session or system
    /// bus and no logind session: a `headsup live` run in it finds no screen
    /// source, so its warnings follow the motion model whether or not the
    /// machine running the tests has a desktop, blanked or locked.
    public static func awayFromTheDesktop(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        var environment = environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/headsup-test-bus"
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/headsup-test-bus"
        environment.removeValue(forKey: "XDG_SESSION_ID")
        return environment
    }

    /// Folder holding the built `headsup` executable next to the test bundle.
    public static var productsDirectory: URL {
        var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 where !FileManager.default.fileExists(atPath: url.appendingPathComponent("headsup").path) {
            url.deleteLastPathComponent()
        }
        return url
    }
}

/// Skips the current test with `reason` when `available` is false, except
/// under CI=true, where the missing capability fails the test: CI must run
/// every test.
public func requireCapability(
    _ available: Bool, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    guard !available else { return }
    if TestEnvironment.isCI {
        Issue.record("cannot run under CI: \(reason)", sourceLocation: sourceLocation)
        throw CapabilityMissing(reason: reason)
    }
    #if compiler(>=6.3)
        try Test.cancel("skipped: \(reason)", sourceLocation: sourceLocation)
    #else
        // Swift Testing before 6.3 (Debian's 6.2.3, which builds the arm64
        // package) cannot skip a running test: it fails, naming the reason.
        throw CapabilityMissing(reason: reason)
    #endif
}

public struct CapabilityMissing: Error, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { "capability missing: \(reason)" }
}
