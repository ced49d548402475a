import ArgumentParser
import Foundation
import HeadsUpRuntime

/// `headsup snooze 30m` / `headsup snooze off`: asks the running daemon.
struct SnoozeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snooze",
        abstract: "Pause the running daemon's warnings for a while, or resume them.",
        discussion: """
            Talks to `headsup live` over its control socket (see `headsup status --help`). The snooze is kept in \
            $XDG_STATE_HOME/headsup/snooze.json ($STATE_DIRECTORY under systemd), so it outlasts a restart of the daemon; \
            a wall clock that steps neither stretches nor cuts it. The notification's "Snooze 30 min" button does the same.
            """)

    @Argument(help: "How long: whole numbers with s, m, h or d (30m, 1h30m), up to a week; or off.")
    var length: String

    @OptionGroup var socket: ControlSocketOption

    func run() throws {
        let request: ControlRequest
        if ["off", "resume", "0"].contains(length.lowercased()) {
            request = .resume
        } else {
            do { request = .snooze(seconds: try Snooze.parseLength(length)) } catch { throw ValidationError(error.description) }
        }
        let status = try socket.send(request)
        if let until = status.snoozedUntil {
            print("Warnings snoozed until \(StatusCommand.clockTime(until)).")
        } else {
            print("Warnings are on.")
        }
    }
}

/// Where the daemon's control socket is, shared by `snooze` and `status`.
struct ControlSocketOption: ParsableArguments {
    @Option(
        name: .customLong("socket"),
        help: "The daemon's control socket (default: HEADSUP_CONTROL_SOCKET, $XDG_RUNTIME_DIR/headsup/control or /run/headsup/control).")
    var path: String?

    /// The socket to use: the flag, else the standard place; a user without
    /// a daemon of their own reaches the system service's.
    var resolved: String {
        if let path { return path }
        let environment = ProcessInfo.processInfo.environment
        let standard = ControlSocketPath.resolve(environment: environment)
        if environment["HEADSUP_CONTROL_SOCKET"] == nil, !FileManager.default.fileExists(atPath: standard),
            FileManager.default.fileExists(atPath: ControlSocketPath.systemService)
        {
            return ControlSocketPath.systemService
        }
        return standard
    }

    func send(_ request: ControlRequest) throws -> DaemonStatus {
        let response = try ControlClient.send(request, to: resolved)
        if let error = response.error { throw CommandError(error) }
        guard let status = response.status else { throw CommandError("the daemon answered without its status") }
        return status
    }
}
