import ArgumentParser
import Foundation
import HeadsUpData
import HeadsUpRuntime
import HeadsUpSystem

/// `headsup status`: what the running daemon is doing.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the running daemon is doing: distraction, walking, regions, snooze, counters.",
        discussion: """
            `headsup live` serves a control socket: HEADSUP_CONTROL_SOCKET if set, else $RUNTIME_DIRECTORY/control \
            under systemd, else $XDG_RUNTIME_DIR/headsup/control, else /run/headsup/control. Each request is one JSON \
            line ({"status":{}}, {"snooze":{"seconds":1800}}, {"resume":{}}) and gets one JSON line back.
            """)

    @OptionGroup var socket: ControlSocketOption
    @Flag(help: "Print the status as JSON.") var json = false

    func run() throws {
        let status = try socket.send(.status)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(status), as: UTF8.self))
            return
        }
        let score = status.smoothedScore.map { String(format: "%.2f", $0) } ?? "-"
        print("headsup live (pid \(status.pid)), up \(Self.duration(status.uptime))")
        print("  distracted: \(status.distracted ? "yes" : "no") (smoothed score \(score)); walking: \(status.walking ? "yes" : "no")")
        let regions = status.regions.isEmpty ? "none configured" : status.regions.joined(separator: ", ")
        let inside = status.insideRegions.isEmpty ? "none" : status.insideRegions.joined(separator: ", ")
        print("  regions: \(regions); inside: \(inside)")
        print("  warnings: \(status.snoozedUntil.map { "snoozed until \(Self.clockTime($0))" } ?? "on"); \(status.warnings) given")
        if let location = status.location {
            let inside = status.insideCrossings ?? []
            print("  location: \(location)\(inside.isEmpty ? "" : "; at \(inside.joined(separator: ", "))")")
        }
        if let screen = status.screen {
            let sources = (status.screenSources ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
            print("  screen: \(screen)\(sources.isEmpty ? "" : " (\(sources))")")
        }
        print("  notifications sent \(status.notificationsSent), failed \(status.notificationsFailed)")
        for line in status.sensors ?? [] { print("  sensor \(line)") }
    }

    static func clockTime(_ unixSeconds: Double) -> String { localTime(unixSeconds) }

    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds)
        return total >= 3600 ? "\(total / 3600) h \(total % 3600 / 60) min" : total >= 60 ? "\(total / 60) min \(total % 60) s" : "\(total) s"
    }
}
