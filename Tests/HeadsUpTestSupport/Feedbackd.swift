import Foundation
import Glibc

/// Debian's real feedbackd on a private session bus, with a test theme of
/// "Dummy" feedbacks (no device needed): each triggered event runs for the
/// Dummy's duration and ends with a FeedbackEnded signal a test can watch.
public final class Feedbackd {
    public static let executable = "/usr/libexec/feedbackd"

    public static var unavailableReason: String? {
        FileManager.default.isExecutableFile(atPath: executable) ? nil : "\(executable) is missing (make test installs Debian's feedbackd)"
    }

    /// The test theme: event name → Dummy duration in milliseconds.
    public static let theme: [String: Int] = ["long-warning": 60_000, "short-warning": 300]

    private let process: BackgroundProcess
    private let directory: TemporaryDirectory

    public init(bus: PrivateDBus) throws {
        directory = try TemporaryDirectory()
        let feedbacks = Self.theme.sorted(by: { $0.key < $1.key }).map {
            "{\"event-name\": \"\($0.key)\", \"type\": \"Dummy\", \"duration\": \($0.value)}"
        }
        // All three profiles: feedbackd 0.0.3 logs criticals on every trigger when one is missing.
        let theme = """
            {"name": "headsup-test", "profiles": [
              {"name": "full", "feedbacks": [\(feedbacks.joined(separator: ", "))]},
              {"name": "quiet", "feedbacks": []},
              {"name": "silent", "feedbacks": []}]}
            """
        let themePath = try directory.write("theme.json", theme)
        var environment = bus.environment
        environment["FEEDBACK_THEME"] = themePath
        environment["GSETTINGS_BACKEND"] = "memory"  // no dconf on a private bus
        environment["G_MESSAGES_DEBUG"] = "all"
        process = try BackgroundProcess(Self.executable, [], environment: environment)
        // Until feedbackd owns its name, a call would make the bus start the system's feedbackd, with the stock theme.
        guard process.wait(for: "Service name 'org.sigxcpu.Feedback' was acquired", timeout: 10) else {
            throw CapabilityMissing(reason: "feedbackd did not start: \(process.standardError)")
        }
    }

    /// feedbackd's own log (GLib debug messages).
    public var log: String { process.standardOutput + process.standardError }

    deinit { process.killAbruptly() }
}
