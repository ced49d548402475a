import HeadsUpData

/// The phone's screen state over a recorded walk, to replay beside its
/// beacons: what the screen sources would have said.
///
///     # comments and blank lines are ignored
///     time,state
///     0.0,on
///     20.5,off
///
/// `time` is seconds since the session's first sample; `state` is on, off,
/// locked, idle or unknown. Before the first line the state is unknown.
public struct ScreenTrack: Sendable, Equatable {
    public struct Change: Sendable, Equatable {
        public var time: Double
        public var state: ScreenState

        public init(time: Double, state: ScreenState) {
            self.time = time
            self.state = state
        }
    }

    /// In time order.
    public var changes: [Change]

    public init(changes: [Change] = []) {
        self.changes = changes.sorted { $0.time < $1.time }
    }

    /// The state at `time` (seconds since the session's first sample): the
    /// last change at or before it; unknown before the first.
    public func state(at time: Double) -> ScreenState {
        changes.last { $0.time <= time }?.state ?? .unknown
    }

    /// The track beside a session CSV that `evaluate` reads: `walk.csv` →
    /// `walk.screen.csv` (a folder of sessions leaves such files out).
    public static func path(besideSession session: String) -> String {
        (session.hasSuffix(".csv") ? String(session.dropLast(4)) : session) + besideSessionSuffix
    }
    public static let besideSessionSuffix = ".screen.csv"

    /// Parses a track's text; `path` names it in errors (the caller reads the file).
    public static func parse(_ text: String, path: String) throws(ScreenTrackError) -> ScreenTrack {
        var changes: [Change] = []
        let body = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        let lines = body.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        for (offset, rawLine) in lines.enumerated() {
            let line = rawLine.trimmingWhitespace
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("time,") { continue }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmingWhitespace)
            guard fields.count == 2 else {
                throw ScreenTrackError(path: path, line: offset + 1, message: "expected time,state; found \(fields.count) fields")
            }
            guard let time = Double(fields[0]), time.isFinite, time >= 0, time <= ResamplingConfiguration.largestTime else {
                throw ScreenTrackError(
                    path: path, line: offset + 1, message: "time '\(fields[0])' is not a number of seconds from the session's start")
            }
            guard let state = ScreenState(rawValue: fields[1]) else {
                let states = ScreenState.allCases.map(\.rawValue).joined(separator: ", ")
                throw ScreenTrackError(path: path, line: offset + 1, message: "state '\(fields[1])' is not one of \(states)")
            }
            changes.append(Change(time: time, state: state))
        }
        return ScreenTrack(changes: changes)
    }
}

/// A screen track that cannot be read: the file, the line and what is wrong there.
public struct ScreenTrackError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var message: String
    public var description: String { "\(path):\(line): \(message)" }
}
