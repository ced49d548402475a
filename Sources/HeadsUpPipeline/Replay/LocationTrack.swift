import HeadsUpCrossings
import HeadsUpData

/// The phone's positions over a recorded walk, to replay beside its
/// beacons: what GeoClue2 or gpsd would have said.
///
///     # comments and blank lines are ignored
///     time,latitude,longitude,accuracy,speed,heading
///     12.0,43.7372399,7.4234985,5,1.4,90
///
/// `time` is seconds since the session's first sample; latitude and
/// longitude in degrees (WGS84); accuracy in metres; speed in m/s and
/// heading in degrees from north, each empty or −1 when unknown (as
/// GeoClue says).
public struct LocationTrack: Sendable, Equatable {
    /// Fixes in time order, times relative to the session start.
    public var fixes: [LocationFix]

    public init(fixes: [LocationFix] = []) {
        self.fixes = fixes.sorted { $0.time < $1.time }
    }

    public static let header = "time,latitude,longitude,accuracy,speed,heading"

    /// Parses a track's text; `path` names it in errors (the caller reads the file).
    public static func parse(_ text: String, path: String) throws(LocationTrackError) -> LocationTrack {
        var fixes: [LocationFix] = []
        let body = text.unicodeScalars.first == "\u{FEFF}" ? String(text.unicodeScalars.dropFirst()) : text
        let lines = body.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { String(String.UnicodeScalarView($0)) }
        for (offset, rawLine) in lines.enumerated() {
            let line = rawLine.trimmingWhitespace
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix("time,") { continue }
            func fail(_ message: String) -> LocationTrackError { LocationTrackError(path: path, line: offset + 1, message: message) }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(\.trimmingWhitespace)
            guard fields.count == 6 else { throw fail("expected \(header); found \(fields.count) fields") }
            guard let time = Double(fields[0]), time.isFinite, time >= 0, time <= ResamplingConfiguration.largestTime else {
                throw fail("time '\(fields[0])' is not a number of seconds from the session's start")
            }
            guard let latitude = Double(fields[1]), let longitude = Double(fields[2]),
                GeoPoint(latitude: latitude, longitude: longitude).isValid
            else {
                throw fail("'\(fields[1])', '\(fields[2])' is not a latitude (−90…90) and longitude (−180…180)")
            }
            guard let accuracy = Double(fields[3]), accuracy.isFinite, accuracy >= 0 else {
                throw fail("accuracy '\(fields[3])' is not a number of metres")
            }
            let speed = try optional(fields[4], name: "speed", fail: fail)
            let heading = try optional(fields[5], name: "heading", fail: fail)
            fixes.append(
                LocationFix(
                    time: time, position: GeoPoint(latitude: latitude, longitude: longitude), accuracy: accuracy, speed: speed, heading: heading))
        }
        return LocationTrack(fixes: fixes)
    }

    /// Empty or negative (GeoClue's −1): unknown.
    private static func optional(_ field: String, name: String, fail: (String) -> LocationTrackError) throws(LocationTrackError) -> Double? {
        if field.isEmpty { return nil }
        guard let value = Double(field), value.isFinite else { throw fail("\(name) '\(field)' is not a number (empty or -1: unknown)") }
        return value < 0 ? nil : value
    }
}

public struct LocationTrackError: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var line: Int
    public var message: String
    public var description: String { "\(path):\(line): \(message)" }
}
