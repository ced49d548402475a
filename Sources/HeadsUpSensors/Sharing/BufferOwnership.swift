import Foundation
import Glibc

/// One process, told apart from a later one that reuses its pid: the boot
/// it ran in, its pid and its start time (clock ticks after boot, field 22
/// of `/proc/PID/stat`).
public struct ProcessIdentity: Sendable, Equatable {
    public var bootID: String
    public var pid: Int32
    public var startTime: UInt64

    public init(bootID: String, pid: Int32, startTime: UInt64) {
        self.bootID = bootID
        self.pid = pid
        self.startTime = startTime
    }

    /// This process, from /proc; nil where /proc cannot say.
    public static func current() -> ProcessIdentity? {
        guard let boot = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8),
            let start = startTime(of: getpid())
        else { return nil }
        return ProcessIdentity(bootID: boot.trimmingCharacters(in: .whitespacesAndNewlines), pid: getpid(), startTime: start)
    }

    /// The start time of a running process, or nil when there is no such process.
    public static func startTime(of pid: Int32) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return nil }
        return startTime(parsingStat: stat)
    }

    /// Field 22 of a `/proc/PID/stat` line; the command name (field 2) may hold spaces and parentheses.
    static func startTime(parsingStat text: String) -> UInt64? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state), so field 22 is fields[19].
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}

/// The record HeadsUp keeps while it has a device's buffer enabled, so that
/// after a `kill -9` its next start can tell its own forgotten buffer (turn
/// it off) from one another program has on (leave it alone: libiio's buffer
/// set-up would switch it off under them).
public struct BufferOwnershipRecord: Sendable, Equatable {
    public var owner: ProcessIdentity
    public var device: String

    public init(owner: ProcessIdentity, device: String) {
        self.owner = owner
        self.device = device
    }

    var text: String { "boot_id=\(owner.bootID)\npid=\(owner.pid)\nstart_time=\(owner.startTime)\ndevice=\(device)\n" }

    init?(parsing text: String) {
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        guard let boot = fields["boot_id"], let pid = fields["pid"].flatMap({ Int32($0) }),
            let start = fields["start_time"].flatMap({ UInt64($0) }), let device = fields["device"]
        else { return nil }
        self.init(owner: ProcessIdentity(bootID: boot, pid: pid, startTime: start), device: device)
    }

    /// What to do with an enabled buffer. Pure: `isRunning` says whether a
    /// process with that identity is alive now.
    public enum Verdict: Sendable, Equatable {
        /// Left on by a HeadsUp that is gone (or by this process): switch it off and use it.
        case ours(String)
        /// Someone else's: leave it on, wait and retry.
        case someoneElses(String)
    }

    public static func judge(
        enabledBuffer record: BufferOwnershipRecord?, current: ProcessIdentity, isRunning: (ProcessIdentity) -> Bool
    ) -> Verdict {
        guard let record else { return .someoneElses("no HeadsUp record of it: another program (iio-sensor-proxy?) has it on") }
        if record.owner == current { return .ours("this process turned it on") }
        guard record.owner.bootID == current.bootID else {
            return .someoneElses("HeadsUp's record is from an earlier boot, so another program turned it on")
        }
        if isRunning(record.owner) { return .someoneElses("another HeadsUp (pid \(record.owner.pid)) is streaming it") }
        return .ours("a HeadsUp that ended without turning it off (pid \(record.owner.pid)) left it on")
    }
}

/// The records, one file per device in a runtime directory (`/run/headsup`
/// for the service, `$XDG_RUNTIME_DIR/headsup` for a user), which a reboot
/// empties. A record that cannot be written is logged by the caller, not
/// fatal: it only costs the clean-up after a crash.
public struct BufferOwnershipStore: Sendable {
    public var directory: String

    public init(directory: String) { self.directory = directory }

    func path(for device: String) -> String {
        "\(directory)/iio-buffer-\(device.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }.map(String.init).joined())"
    }

    public func record(for device: String) -> BufferOwnershipRecord? {
        (try? String(contentsOfFile: path(for: device), encoding: .utf8)).flatMap(BufferOwnershipRecord.init(parsing:))
    }

    public func save(_ record: BufferOwnershipRecord) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let target = path(for: record.device)
        try Data(record.text.utf8).write(to: URL(fileURLWithPath: target), options: .atomic)
    }

    public func remove(device: String) {
        unlink(path(for: device))
    }

    /// Whether a process with this identity is running now.
    public static func isRunning(_ identity: ProcessIdentity) -> Bool {
        ProcessIdentity.startTime(of: identity.pid) == identity.startTime
    }
}

extension BufferOwnershipStore {
    /// Where the records go, as the control socket's directory is found:
    /// `$RUNTIME_DIRECTORY` under systemd (RuntimeDirectory=headsup), else
    /// `$XDG_RUNTIME_DIR/headsup`, else the system service's `/run/headsup`.
    public static func standard(environment: [String: String]) -> BufferOwnershipStore {
        if let runtime = environment["RUNTIME_DIRECTORY"], let first = runtime.split(separator: ":").first {
            return BufferOwnershipStore(directory: String(first))
        }
        if let user = environment["XDG_RUNTIME_DIR"], !user.isEmpty { return BufferOwnershipStore(directory: user + "/headsup") }
        return BufferOwnershipStore(directory: "/run/headsup")
    }
}
