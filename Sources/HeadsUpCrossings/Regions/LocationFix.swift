/// One position from the location source (GeoClue2, gpsd, a replayed
/// `locations.csv`), on the pipeline's clock.
public struct LocationFix: Sendable, Equatable {
    /// When the fix was measured, seconds on the caller's clock.
    public var time: Double
    public var position: GeoPoint
    /// Metres (radius of the likely area); GeoClue says 0 for a good NMEA fix.
    public var accuracy: Double
    /// Metres per second, nil when unknown (GeoClue's −1).
    public var speed: Double?
    /// Degrees clockwise from north, nil when unknown.
    public var heading: Double?

    public init(time: Double, position: GeoPoint, accuracy: Double, speed: Double? = nil, heading: Double? = nil) {
        self.time = time
        self.position = position
        self.accuracy = accuracy
        self.speed = speed
        self.heading = heading
    }
}
