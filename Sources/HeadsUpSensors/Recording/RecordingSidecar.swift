import Foundation
import Glibc
import HeadsUpData
import HeadsUpSystem

/// What a recorded session's CSV cannot say, kept beside it (`walk.csv` →
/// `walk.json`): where the phone was, which sensors and channels were
/// measured, the rate and the start. The CSV keeps its 0/1 label so every
/// reader of sessions stays as it is; a personal model's training and its
/// per-position report read the position from here, and channels that were
/// not measured (a phone without a magnetometer writes 0) are named so they
/// are not mistaken for a still sensor.
public struct RecordingSidecar: Codable, Sendable, Equatable {
    /// One IIO device the session's samples came from.
    public struct Device: Codable, Sendable, Equatable {
        public var kinds: [String]
        public var name: String
        public var id: String
        public var rateHz: Double?
        public var mode: String

        public init(kinds: [String], name: String, id: String, rateHz: Double?, mode: String) {
            (self.kinds, self.name, self.id, self.rateHz, self.mode) = (kinds, name, id, rateHz, mode)
        }

        enum CodingKeys: String, CodingKey {
            case kinds, name, id, mode
            case rateHz = "rate_hz"
        }
    }

    /// What `format` says, so a reader can tell this file from other JSON beside sessions.
    public static let format = "headsup-recording"
    public static let formatVersion = 1

    public var format = RecordingSidecar.format
    public var formatVersion = RecordingSidecar.formatVersion
    /// The session CSV's file name (no folder: the pair moves together).
    public var session: String
    /// Where the phone was: the position the recording started with.
    public var position: PhonePosition
    /// The CSV's label for `position` at the start (0 or 1); keys can change it mid-recording.
    public var label: Int
    /// The IIO context the sensors were read through (`local:`, `ip:HOST`).
    public var context: String
    public var devices: [Device]
    /// The CSV columns that hold measurements; the others are written as 0.
    public var channels: [String]
    public var sampleRateHz: Int
    public var axisConvention: String
    /// Unix seconds of the first grid point (the CSV's time base), and the same in UTC.
    public var startTime: Double
    public var startTimeUTC: String
    /// Filled in when the recording ends: rows written, seconds covered, label switches.
    public var samples: Int?
    public var seconds: Double?
    public var labelChanges: Int?

    public init(
        session: String, position: PhonePosition, context: String, devices: [Device], channels: [String], sampleRateHz: Int,
        axisConvention: String, startTime: Double
    ) {
        self.session = session
        self.position = position
        self.label = position.label.rawValue
        self.context = context
        self.devices = devices
        self.channels = channels
        self.sampleRateHz = sampleRateHz
        self.axisConvention = axisConvention
        self.startTime = startTime
        self.startTimeUTC = Self.utc(startTime)
    }

    enum CodingKeys: String, CodingKey {
        case format, session, position, label, context, devices, channels, samples, seconds
        case formatVersion = "format_version"
        case sampleRateHz = "sample_rate_hz"
        case axisConvention = "axis_convention"
        case startTime = "start_time"
        case startTimeUTC = "start_time_utc"
        case labelChanges = "label_changes"
    }

    /// The sidecar of a session file: its extension replaced by `.json`
    /// (`walk.csv` → `walk.json`), or `.json` appended when it has none.
    public static func path(forSession session: String) -> String { PhonePosition.sidecarPath(ofSession: session) }

    /// The CSV columns a set of sensor kinds measures, in the CSV's order.
    public static func channels(measuredBy kinds: Set<SensorKind>) -> [String] {
        SensorChannel.allCases.filter { channel in
            switch channel.rawValue / 3 {
            case 0: kinds.contains(.accelerometer)
            case 1: kinds.contains(.gyroscope)
            default: kinds.contains(.magnetometer)
            }
        }.map(\.csvName)
    }

    /// The JSON text: keys sorted, indented, one trailing newline.
    public func encoded() throws(RecordingSidecarError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do { return Array(try encoder.encode(self)) + [UInt8(ascii: "\n")] } catch {
            throw .unwritable(session, "cannot encode it (\(error))")
        }
    }

    /// Reads a sidecar, refusing a file that is not one.
    public static func read(from path: String) throws(RecordingSidecarError) -> RecordingSidecar {
        guard let data = FileManager.default.contents(atPath: path) else { throw .unreadable(path, "cannot be read") }
        let sidecar: RecordingSidecar
        do { sidecar = try JSONDecoder().decode(RecordingSidecar.self, from: data) } catch {
            throw .unreadable(path, "not a recording sidecar (\(error))")
        }
        guard sidecar.format == format else { throw .unreadable(path, "its format is \(sidecar.format), not \(format)") }
        return sidecar
    }

    /// Writes the sidecar at `path` so that a crash leaves the old file or
    /// the new one, never half of one: a temporary file in the same folder,
    /// fsynced, renamed over `path`, then the folder fsynced.
    public func write(to path: String) throws(RecordingSidecarError) {
        let bytes = try encoded()
        let temporary = path + ".tmp-\(getpid())"
        do throws(SystemCallError) {
            let file = try PosixFile.open(temporary, .createNew)
            do throws(SystemCallError) {
                // A buffer of its own: withUnsafeBytes' closure would lose the error's type.
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
                defer { buffer.deallocate() }
                buffer.copyBytes(from: bytes)
                var written = 0
                while written < bytes.count {
                    written += try file.writeSome(UnsafeRawBufferPointer(rebasing: buffer[written...]))
                }
                try file.sync()
            } catch {
                try? file.close()
                throw error
            }
            try file.close()
        } catch {
            _ = unlink(temporary)
            throw .unwritable(path, error.description)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = unlink(temporary)
            throw .unwritable(path, "rename failed (\(reason))")
        }
        PosixFile.syncDirectory(containing: path)
    }

    /// ISO 8601 in UTC with milliseconds, for people reading the file.
    static func utc(_ seconds: Double) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}

/// A recording's sidecar could not be written or read.
public enum RecordingSidecarError: Error, Sendable, CustomStringConvertible, Equatable {
    case unwritable(String, String)
    case unreadable(String, String)

    public var description: String {
        switch self {
        case .unwritable(let path, let why):
            "\(path): cannot write the recording's sidecar (\(why)); check the folder is writable, the CSV itself is kept"
        case .unreadable(let path, let why):
            "\(path): \(why); a sidecar is what `headsup record` writes beside its CSV (NAME.json)"
        }
    }
}
