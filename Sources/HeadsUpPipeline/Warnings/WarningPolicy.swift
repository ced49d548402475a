import HeadsUpBeacons

/// When to warn, HeadsUp's version of the seed app's rule ("beacon ranged,
/// proximity immediate or near, latest score > 0.5 → warn").
public struct WarningConfiguration: Sendable, Equatable, Codable {
    /// Warn while inside a region only at this proximity or closer.
    public var proximity: Proximity
    /// Seconds between checks while inside (the seed's 5 s ranging throttle).
    public var checkInterval: Double
    /// Seconds after a warning before the same region may warn again.
    public var cooldown: Double
    public var title: String
    public var body: String
    /// Bodies used in turn, so a user does not tune one sentence out; empty: `body` every time.
    public var messages: [String]
    /// Warn only while the user walks: someone standing at a bus stop by a beacon is not stepping into the road.
    public var onlyWhileWalking: Bool
    /// Warn only while the phone is in use (screen on, unlocked): a phone in a
    /// bag or an armband can move like one in the hands, but nobody reads a
    /// dark screen.
    public var onlyWhileScreenOn: ScreenGate

    public init(
        proximity: Proximity = .near, checkInterval: Double = 5, cooldown: Double = 30, title: String = "Beware!",
        body: String = "You are crossing the road!", messages: [String] = [], onlyWhileWalking: Bool = true,
        onlyWhileScreenOn: ScreenGate = .auto
    ) {
        self.messages = messages
        self.onlyWhileWalking = onlyWhileWalking
        self.onlyWhileScreenOn = onlyWhileScreenOn
        self.proximity = proximity
        self.checkInterval = checkInterval
        self.cooldown = cooldown
        self.title = title
        self.body = body
    }

    /// The body of the `index`-th warning (from 0): the messages in turn, or the one body.
    public func body(forWarning index: Int) -> String {
        messages.isEmpty ? body : messages[index % messages.count]
    }
}

/// A warning to deliver, with the evidence that caused it.
public struct Warning: Sendable, Equatable {
    public var time: Double
    public var region: String
    public var beacon: String
    public var rssi: Int
    public var proximity: Proximity
    public var score: Double?
    public var smoothedScore: Double?
    public var title: String
    public var body: String
    /// "enter" or "inside".
    public var trigger: String
}

/// One decision and its inputs, for the log ("every decision is logged").
public struct WarningDecision: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        case warned
        case notDistracted = "not-distracted"
        case notWalking = "not-walking"
        case coolingDown = "cooling-down"
        case tooFar = "too-far"
        /// Everything called for a warning, but the user snoozed them.
        case snoozed
        /// Everything else called for a warning, but the phone was not in use
        /// (screen blanked, locked or idle) and `only_while_screen_on` holds.
        case screenOff = "screen-off"
    }
    public var time: Double
    public var region: String
    public var trigger: String
    public var outcome: Outcome
    public var distracted: Bool
    public var smoothedScore: Double?
    public var rssi: Int
    public var proximity: Proximity
}

/// Decides warnings from region events, beacon updates and the distraction
/// state. Checks on region entry, and while inside at the configured
/// proximity at most every `checkInterval`; a per-region cooldown stops
/// repeats. Pure logic with the time passed in.
public struct WarningPolicy: Sendable {
    public let configuration: WarningConfiguration
    private var insideSince: [String: Double] = [:]
    private var lastCheck: [String: Double] = [:]
    private var lastWarning: [String: Double] = [:]
    private var walking = true
    private var snoozed = false
    private var screen = ScreenState.unknown

    public init(configuration: WarningConfiguration = .init()) {
        self.configuration = configuration
    }

    /// Region events and the current beacon statuses at `time`; returns the
    /// decisions taken (warned or why not).
    public mutating func evaluate(
        events: [RegionEvent], beaconsInRegions: [(region: BeaconRegion, beacon: BeaconStatus)], at time: Double,
        distracted: Bool, smoothedScore: Double?, walking: Bool = true, snoozed: Bool = false, screen: ScreenState = .unknown
    ) -> [WarningDecision] {
        self.walking = walking
        self.snoozed = snoozed
        self.screen = screen
        var decisions: [WarningDecision] = []
        for event in events {
            switch event {
            case .entered(let region, let beacon, let eventTime):
                insideSince[region.name] = eventTime
                lastCheck[region.name] = eventTime
                decisions.append(
                    decide(region: region.name, beacon: beacon, trigger: "enter", at: eventTime, distracted: distracted, smoothed: smoothedScore))
            case .exited(let region, _, _, _):
                insideSince[region.name] = nil
                lastCheck[region.name] = nil
            case .proximityChanged:
                break
            }
        }
        for (region, beacon) in beaconsInRegions where insideSince[region.name] != nil {
            guard time - (lastCheck[region.name] ?? -.infinity) >= configuration.checkInterval else { continue }
            lastCheck[region.name] = time
            decisions.append(
                decide(region: region.name, beacon: beacon, trigger: "inside", at: time, distracted: distracted, smoothed: smoothedScore))
        }
        return decisions
    }

    private mutating func decide(region: String, beacon: BeaconStatus, trigger: String, at time: Double, distracted: Bool, smoothed: Double?)
        -> WarningDecision
    {
        var outcome: WarningDecision.Outcome
        if beacon.proximity > configuration.proximity && trigger == "inside" {
            outcome = .tooFar
        } else if !distracted {
            outcome = .notDistracted
        } else if configuration.onlyWhileWalking && !walking {
            outcome = .notWalking
        } else if configuration.onlyWhileScreenOn.holdsBack(screen) {
            outcome = .screenOff
        } else if let last = lastWarning[region], time - last < configuration.cooldown {
            outcome = .coolingDown
        } else if snoozed {
            outcome = .snoozed
        } else {
            outcome = .warned
            lastWarning[region] = time
        }
        return WarningDecision(
            time: time, region: region, trigger: trigger, outcome: outcome, distracted: distracted, smoothedScore: smoothed,
            rssi: beacon.rssi, proximity: beacon.proximity)
    }
}
