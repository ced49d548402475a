import Foundation
import HeadsUpCrossings

/// One line of gpsd's JSON protocol (gpsd_json(5)), as far as HeadsUp reads
/// it: a TPV report with a fix, a TPV report without one, or anything else.
/// Pure decoding, so odd lines are tested without a gpsd.
public enum GPSDReport: Equatable, Sendable {
    /// A 2D or 3D fix.
    case fix(LocationFix)
    /// A TPV report with mode 0 or 1: the receiver has no fix.
    case noFix
    /// VERSION, DEVICES, WATCH, SKY, … or a line that is not gpsd's.
    case other

    /// `line` is one JSON object; `monotonicNow` and `wallNow` place its
    /// `time` on the pipeline's clock. Accuracy is `eph` (metres), else the
    /// larger of `epx` and `epy`; without either it is unknown (the monitor
    /// ignores the fix as too inaccurate).
    public static func parse(_ line: Substring, monotonicNow: Double, wallNow: Double) -> GPSDReport {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], object["class"] as? String == "TPV" else {
            return .other
        }
        func number(_ key: String) -> Double? { (object[key] as? NSNumber).map(\.doubleValue).flatMap { $0.isFinite ? $0 : nil } }
        guard let mode = number("mode"), mode >= 2, let latitude = number("lat"), let longitude = number("lon") else { return .noFix }
        let position = GeoPoint(latitude: latitude, longitude: longitude)
        guard position.isValid else { return .noFix }
        let accuracy = number("eph") ?? [number("epx"), number("epy")].compactMap { $0 }.max() ?? .infinity
        var time = monotonicNow
        if let stamp = object["time"] as? String, let measured = parseTime(stamp) {
            time = monotonicNow - max(0, wallNow - measured)
        }
        return .fix(
            LocationFix(
                time: time, position: position, accuracy: accuracy >= 0 ? accuracy : .infinity, speed: number("speed").flatMap { $0 >= 0 ? $0 : nil },
                heading: number("track")))
    }

    /// gpsd's ISO 8601 UTC time ("2026-11-29T01:02:03.250Z") as seconds since 1970.
    static func parseTime(_ text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}
