/// When a beacon counts as "in the region": thresholds with hysteresis, so
/// a reading hovering at the edge does not flicker in and out.
public enum RegionEntryRule: Sendable, Equatable {
    /// Enter at smoothed RSSI ≥ `enter` dBm, exit below `exit` dBm (`exit` < `enter`).
    case rssi(enter: Double, exit: Double)
    /// Enter within `enter` metres (estimated), exit beyond `exit` metres (`exit` > `enter`).
    case distance(enter: Double, exit: Double)
}

/// How the region monitor judges beacons.
public struct RegionMonitorConfiguration: Sendable, Equatable {
    public var rule: RegionEntryRule
    /// Seconds the entry condition must hold before an enter event.
    public var dwell: Double
    /// Seconds without an advertisement after which a beacon is gone.
    public var exitTimeout: Double
    public var filter: RSSIFilterKind
    public var distance: DistanceModel

    public init(
        rule: RegionEntryRule = .distance(enter: 3, exit: 5), dwell: Double = 1, exitTimeout: Double = 10,
        filter: RSSIFilterKind = .arma(coefficient: 0.25), distance: DistanceModel = .init()
    ) {
        self.rule = rule
        self.dwell = dwell
        self.exitTimeout = exitTimeout
        self.filter = filter
        self.distance = distance
    }
}
