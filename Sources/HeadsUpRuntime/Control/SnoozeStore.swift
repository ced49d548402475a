import Foundation

/// Where the snooze is kept between runs: `$STATE_DIRECTORY/snooze.json`
/// under systemd (StateDirectory=headsup), else
/// `$XDG_STATE_HOME/headsup/snooze.json` (~/.local/state by default).
public struct SnoozeStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    public static func standard(environment: [String: String]) -> SnoozeStore {
        if let state = environment["STATE_DIRECTORY"], !state.isEmpty {
            return SnoozeStore(path: state.split(separator: ":").first.map(String.init)! + "/snooze.json")
        }
        let base = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.local/state")
        return SnoozeStore(path: base + "/headsup/snooze.json")
    }

    /// The saved snooze; nil when there is none. A damaged file is an error
    /// the caller logs before going on without a snooze.
    public func load() throws(SnoozeStoreError) -> Snooze? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path, "cannot be read") }
        let record: Snooze
        do { record = try JSONDecoder().decode(Snooze.self, from: data) } catch { throw .unreadable(path, "not a snooze record (\(error))") }
        do { return try Snooze.checked(record) } catch { throw .unreadable(path, "not a snooze HeadsUp could have saved: \(error)") }
    }

    /// Saves atomically (a crash leaves the old file or the new one), or
    /// removes the file for `nil`.
    public func save(_ snooze: Snooze?) throws(SnoozeStoreError) {
        do {
            guard let snooze else {
                if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
                return
            }
            let folder = (path as NSString).deletingLastPathComponent
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try JSONEncoder().encode(snooze).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .unwritable(path, "\(error)")
        }
    }
}

public enum SnoozeStoreError: Error, Sendable, CustomStringConvertible {
    case unreadable(String, String)
    case unwritable(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path, let why): "\(path): \(why); delete it to clear the snooze"
        case .unwritable(let path, let why): "\(path): cannot save the snooze (\(why)); it lasts until HeadsUp restarts"
        }
    }
}
