import Foundation

/// What `headsup snooze` and `headsup status` ask the running daemon, one
/// JSON line each way over its control socket.
public enum ControlRequest: Codable, Sendable, Equatable {
    case status
    /// Snooze warnings for `seconds`.
    case snooze(seconds: Double)
    /// End a snooze.
    case resume
    /// The user has seen the warning (the notification's Dismiss): stop
    /// the phone's feedback and take the notification down.
    case acknowledge
}

/// The daemon's answer: its status after the request, or why it refused.
public struct ControlResponse: Codable, Sendable, Equatable {
    public var status: DaemonStatus?
    public var error: String?

    public init(status: DaemonStatus? = nil, error: String? = nil) {
        self.status = status
        self.error = error
    }
}

/// What the running job is doing, for `headsup status`.
public struct DaemonStatus: Codable, Sendable, Equatable {
    public var pid: Int32
    /// Seconds since it started.
    public var uptime: Double
    public var distracted: Bool
    public var smoothedScore: Double?
    public var walking: Bool
    /// Regions the user is in now.
    public var insideRegions: [String]
    public var regions: [String]
    /// Unix seconds when the snooze ends; nil when not snoozed.
    public var snoozedUntil: Double?
    public var windowsScored: Int
    public var warnings: Int
    public var notificationsSent: Int
    public var notificationsFailed: Int
    /// The counters line, as SIGUSR1 prints it.
    public var summary: String
    /// Whether the phone is in use (on, off, locked, idle, unknown); nil when no screen source is asked.
    public var screen: String?
    /// Each screen source's answer ("no answer" when it gives none).
    public var screenSources: [String: String]?
    /// How each sensor device is read, why, and how it is doing now.
    public var sensors: [String]?
    /// The location source's state ("Location off: …", "receiving fixes …"); nil without a crossings file.
    public var location: String?
    /// Mapped crossings the user is at now (`osm:node/ID`).
    public var insideCrossings: [String]?

    public init(
        pid: Int32, uptime: Double, distracted: Bool, smoothedScore: Double?, walking: Bool, insideRegions: [String], regions: [String],
        snoozedUntil: Double?, windowsScored: Int, warnings: Int, notificationsSent: Int, notificationsFailed: Int, summary: String
    ) {
        self.pid = pid
        self.uptime = uptime
        self.distracted = distracted
        self.smoothedScore = smoothedScore
        self.walking = walking
        self.insideRegions = insideRegions
        self.regions = regions
        self.snoozedUntil = snoozedUntil
        self.windowsScored = windowsScored
        self.warnings = warnings
        self.notificationsSent = notificationsSent
        self.notificationsFailed = notificationsFailed
        self.summary = summary
    }
}

/// Where the control socket lives. The daemon and the commands resolve it
/// the same way: `HEADSUP_CONTROL_SOCKET`, else `$RUNTIME_DIRECTORY/control`
/// under systemd (RuntimeDirectory=headsup), else
/// `$XDG_RUNTIME_DIR/headsup/control`, else the system service's
/// `/run/headsup/control`.
public enum ControlSocketPath {
    public static let systemService = "/run/headsup/control"

    public static func resolve(environment: [String: String]) -> String {
        if let explicit = environment["HEADSUP_CONTROL_SOCKET"], !explicit.isEmpty { return explicit }
        if let runtime = environment["RUNTIME_DIRECTORY"], !runtime.isEmpty {
            return runtime.split(separator: ":").first.map(String.init)! + "/control"
        }
        if let user = environment["XDG_RUNTIME_DIR"], !user.isEmpty { return user + "/headsup/control" }
        return systemService
    }
}
