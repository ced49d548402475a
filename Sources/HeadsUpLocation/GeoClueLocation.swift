import HeadsUpCrossings

/// A GeoClue2 `Location` object's properties as a fix: pure decoding, so
/// odd payloads are tested without a bus.
public enum GeoClueLocation {
    /// `props` is the `org.freedesktop.GeoClue2.Location` properties
    /// (Latitude, Longitude, Accuracy, Speed, Heading, Timestamp (tt));
    /// `monotonicNow` and `wallNow` place the timestamp on the pipeline's
    /// clock. Nil when the position is missing or not on Earth.
    public static func fix(_ props: [String: Double], timestamp: (seconds: UInt64, microseconds: UInt64)?, monotonicNow: Double, wallNow: Double)
        -> LocationFix?
    {
        guard let latitude = props["Latitude"], let longitude = props["Longitude"] else { return nil }
        let position = GeoPoint(latitude: latitude, longitude: longitude)
        guard position.isValid else { return nil }
        let accuracy = props["Accuracy"].flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? .infinity
        // GeoClue says -1 for an unknown speed or heading.
        let speed = props["Speed"].flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let heading = props["Heading"].flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        var time = monotonicNow
        if let timestamp, timestamp.seconds > 0 {
            let measured = Double(timestamp.seconds) + Double(min(timestamp.microseconds, 999_999)) / 1e6
            // The wall clock may step: an age below zero is "now".
            time = monotonicNow - max(0, wallNow - measured)
        }
        return LocationFix(time: time, position: position, accuracy: accuracy, speed: speed, heading: heading)
    }
}
