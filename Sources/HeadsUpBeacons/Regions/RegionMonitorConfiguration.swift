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
        rule: RegionEntryRule = .distance(enter: RegionEntryRule.standardDistances.enter, exit: RegionEntryRule.standardDistances.exit),
        dwell: Double = 1, exitTimeout: Double = 10,
        filter: RSSIFilterKind = .arma(coefficient: 0.25), distance: DistanceModel = .init()
    ) {
        self.rule = rule
        self.dwell = dwell
        self.exitTimeout = exitTimeout
        self.filter = filter
        self.distance = distance
    }
}

extension RegionEntryRule {
    /// Metres: enter within 3 m (CoreLocation's "near"), leave beyond 5 m.
    public static let standardDistances = (enter: 3.0, exit: 5.0)

    /// The rule from its settings: RSSI thresholds when both are given,
    /// otherwise distances; the exit side must be looser (hysteresis).
    /// The error names the setting at fault.
    public static func make(
        enterRSSI: Double?, exitRSSI: Double?, enterDistance: Double, exitDistance: Double
    ) throws(RegionRuleError) -> RegionEntryRule {
        switch (enterRSSI, exitRSSI) {
        case (let enter?, let exit?):
            guard exit < enter else { throw RegionRuleError(setting: "exit RSSI", message: "must be below the enter RSSI (hysteresis)") }
            return .rssi(enter: enter, exit: exit)
        case (nil, nil):
            guard exitDistance > enterDistance else {
                throw RegionRuleError(setting: "exit distance", message: "must exceed the enter distance (hysteresis)")
            }
            return .distance(enter: enterDistance, exit: exitDistance)
        default:
            throw RegionRuleError(setting: "enter RSSI", message: "give both the enter and the exit RSSI, or neither")
        }
    }
}

/// Region thresholds that contradict each other.
public struct RegionRuleError: Error, CustomStringConvertible {
    /// Which setting is at fault ("exit RSSI", …), for the caller to name its flag or key.
    public var setting: String
    public var message: String
    public var description: String { "\(setting) \(message)" }
}
