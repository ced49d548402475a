/// How the crossing monitor judges fixes. The settings (`crossings.*`,
/// `location.*`) fill it; their ranges live in HeadsUpRuntime/Settings.
public struct CrossingMonitorConfiguration: Sendable, Equatable {
    /// Metres around a crossing's node that count as "at the crossing",
    /// before the fix's accuracy is added (a road is 6–15 m wide).
    public var radius: Double
    /// Metres beyond which (plus accuracy) the crossing is left: wider than
    /// `radius`, so a fix jittering at the edge does not flicker.
    public var exitRadius: Double
    /// Accuracies below this count as this (GeoClue says 0 for a good
    /// NMEA fix, which no receiver in a street achieves).
    public var accuracyFloor: Double
    /// Fixes less accurate than this are ignored (a Wi-Fi or IP position
    /// can be kilometres off and still look like a fix).
    public var maximumAccuracy: Double
    /// Fixes older than this (seconds, at the time they are handed in) are ignored.
    public var maximumAge: Double
    /// Faster than this (m/s) is not walking: a bus or a tram passing a crossing.
    public var maximumSpeed: Double
    /// Seconds without a usable fix after which the crossings held are left.
    public var exitTimeout: Double
    /// Seconds after entering a crossing before it may be entered again
    /// (waiting at a red light, GNSS jitter).
    public var cooldown: Double
    /// The kinds that count (`crossings.kinds`).
    public var kinds: Set<CrossingKind>

    public init(
        radius: Double = 12, exitRadius: Double = 25, accuracyFloor: Double = 5, maximumAccuracy: Double = 30, maximumAge: Double = 5,
        maximumSpeed: Double = 3, exitTimeout: Double = 15, cooldown: Double = 120, kinds: Set<CrossingKind> = Set(CrossingKind.allCases)
    ) {
        self.radius = radius
        self.exitRadius = exitRadius
        self.accuracyFloor = accuracyFloor
        self.maximumAccuracy = maximumAccuracy
        self.maximumAge = maximumAge
        self.maximumSpeed = maximumSpeed
        self.exitTimeout = exitTimeout
        self.cooldown = cooldown
        self.kinds = kinds
    }
}
