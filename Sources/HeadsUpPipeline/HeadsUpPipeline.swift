import HeadsUpBeacons
import HeadsUpCrossings
import HeadsUpData

/// HeadsUp's main job as pure logic: 50 Hz samples → windows → scores →
/// distraction state; beacon sightings → regions; both → warnings. No
/// clock and no I/O inside: the live daemon and the replay drive it with
/// real or recorded time, so a replay at full speed is deterministic.
public final class HeadsUpPipeline {
    public struct Configuration: Sendable {
        public var windowing: WindowingConfiguration
        public var distraction: DistractionConfiguration
        public var warning: WarningConfiguration
        public var regions: [BeaconRegion]
        public var monitor: RegionMonitorConfiguration
        /// Samples per second of the stream the windows are cut from.
        public var rate: Int
        /// The mapped crossings, when a crossings file is in use (nil: beacons only).
        public var crossings: CrossingGrid?
        public var crossingMonitor: CrossingMonitorConfiguration

        public init(
            windowing: WindowingConfiguration = .init(), distraction: DistractionConfiguration = .init(),
            warning: WarningConfiguration = .init(), regions: [BeaconRegion] = [], monitor: RegionMonitorConfiguration = .init(),
            rate: Int = ResamplingConfiguration().rate, crossings: CrossingGrid? = nil,
            crossingMonitor: CrossingMonitorConfiguration = .init()
        ) {
            self.rate = rate
            self.crossings = crossings
            self.crossingMonitor = crossingMonitor
            self.windowing = windowing
            self.distraction = distraction
            self.warning = warning
            self.regions = regions
            self.monitor = monitor
        }
    }

    /// Running totals.
    public struct Counters: Sendable, Equatable {
        public var samples = 0
        public var windowsScored = 0
        public var windowsSkipped = 0
        /// Windows not scored because of a non-finite value (``UnscoredWindowReason``).
        public var windowsWithNonFiniteSamples = 0
        public var windowsWithNonFiniteScore = 0
        public var warnings = 0
        public var decisions = 0
    }

    public let configuration: Configuration
    private let scorer: any WindowScorer
    private var windower: Windower
    public private(set) var tracker: DistractionTracker
    public private(set) var monitor: RegionMonitor
    /// Walking or still, for the walking gate and the status screen.
    public private(set) var walking: WalkingDetector
    private var policy: WarningPolicy
    /// The mapped crossings as regions (nil without a crossings file).
    public private(set) var crossingMonitor: CrossingMonitor?
    /// The crossings' own policy: its per-region cooldown is the crossings'
    /// (a red light outlasts the beacons' 30 s), and the beacons' state is
    /// never touched by a fix.
    private var crossingPolicy: WarningPolicy
    /// The last warning from each side, so a beacon and a mapped crossing
    /// at one place give one warning: the second side within
    /// `warning.cooldown` of the other's says `cooling-down`.
    private var lastBeaconWarning: Double?
    private var lastCrossingWarning: Double?
    /// While true, decisions that would warn say `snoozed` instead (the
    /// user asked for quiet; the caller keeps the snooze's clock).
    public var warningsSnoozed = false
    /// Whether the phone is in use, as last told by `process(screen:at:)`;
    /// unknown until then, and unknown gates nothing.
    public private(set) var screen = ScreenState.unknown
    public private(set) var counters = Counters()
    /// Distracted and not held back by the screen gate, as last reported (`.warnable`).
    public private(set) var warnable = false
    private var lastSampleTime: Double?
    /// Windows waiting to be scored beyond this are skipped (the oldest first).
    public var maximumBacklog = 2

    public init(scorer: any WindowScorer, configuration: Configuration) {
        self.scorer = scorer
        self.configuration = configuration
        windower = Windower(configuration: configuration.windowing)
        tracker = DistractionTracker(configuration: configuration.distraction)
        monitor = RegionMonitor(regions: configuration.regions, configuration: configuration.monitor)
        policy = WarningPolicy(configuration: configuration.warning)
        var crossingWarning = configuration.warning
        crossingWarning.cooldown = max(configuration.warning.cooldown, configuration.crossingMonitor.cooldown)
        crossingPolicy = WarningPolicy(configuration: crossingWarning)
        crossingMonitor = configuration.crossings.map { CrossingMonitor(grid: $0, configuration: configuration.crossingMonitor) }
        walking = WalkingDetector(rate: configuration.rate)
    }

    /// Feeds 50 Hz samples (and segment ends); scores the windows they complete.
    public func process(samples events: [ResampledEvent]) -> [PipelineEvent] {
        var windows: [MotionWindow] = []
        var output: [PipelineEvent] = []
        for event in events {
            switch event {
            case .sample(let sample, _):
                counters.samples += 1
                lastSampleTime = sample.time
                _ = walking.push(sample)
                windower.push(event) { windows.append($0) }
            case .segmentEnd:
                windower.push(event) { windows.append($0) }
                score(&windows, into: &output)
                // A gap: what came before says nothing about what follows.
                if tracker.isDistracted, let lastSampleTime { output.append(.distraction(.becameAttentive(at: lastSampleTime))) }
                tracker.reset()
                walking.reset()
                if let lastSampleTime { updateWarnable(at: lastSampleTime, into: &output) }
            }
        }
        score(&windows, into: &output)
        return output
    }

    /// Scores waiting windows in order; beyond the backlog the oldest are skipped.
    private func score(_ windows: inout [MotionWindow], into output: inout [PipelineEvent]) {
        if windows.count > maximumBacklog {
            let skipped = windows.count - maximumBacklog
            counters.windowsSkipped += skipped
            output.append(.windowsSkipped(count: skipped, time: windows[skipped - 1].startTime))
            windows.removeFirst(skipped)
        }
        for window in windows {
            let end = window.startTime + Double(window.length - 1) / Double(configuration.rate)
            guard window.channelMajorValues.allSatisfy(\.isFinite) else {
                counters.windowsWithNonFiniteSamples += 1
                output.append(.windowUnscored(time: end, reason: .nonFiniteSamples))
                continue
            }
            let score = scorer.score(window)
            guard score.isFinite else {
                counters.windowsWithNonFiniteScore += 1
                output.append(.windowUnscored(time: end, reason: .nonFiniteScore))
                continue
            }
            counters.windowsScored += 1
            let change = tracker.add(score: score, at: end)
            let warnableNow = isWarnable
            output.append(
                .scored(
                    ScoredWindow(
                        time: end, score: score, smoothed: tracker.smoothedScore ?? score, distracted: tracker.isDistracted,
                        warnable: warnableNow, walking: walking.isWalking, label: window.label)))
            if let change { output.append(.distraction(change)) }
            updateWarnable(at: end, into: &output)
        }
        windows.removeAll()
    }

    /// Distracted, and the screen gate does not hold warnings back.
    private var isWarnable: Bool { tracker.isDistracted && !configuration.warning.onlyWhileScreenOn.holdsBack(screen) }

    /// Reports a change of the warnable state at `time`.
    private func updateWarnable(at time: Double, into output: inout [PipelineEvent]) {
        let now = isWarnable
        guard now != warnable else { return }
        warnable = now
        output.append(.warnable(now ? .becameDistracted(at: time) : .becameAttentive(at: time)))
    }

    /// Feeds beacon sightings and lets time pass to `time`; returns region
    /// events and warning decisions.
    public func process(sightings: [BeaconSighting], at time: Double) -> [PipelineEvent] {
        var regionEvents: [RegionEvent] = []
        for sighting in sightings { regionEvents += monitor.observe(sighting) }
        regionEvents += monitor.advance(to: time)
        // Only the beacons holding a region: the work does not grow with the beacons around.
        let inside = monitor.beaconsInside
        let decisions = policy.evaluate(
            events: regionEvents, beaconsInRegions: inside, at: time, distracted: tracker.isDistracted, smoothedScore: tracker.smoothedScore,
            walking: walking.isWalking, snoozed: warningsSnoozed, screen: screen)
        return output(regionEvents: regionEvents, decisions: decisions, inside: inside, fromCrossings: false)
    }

    /// Feeds location fixes (each with the time it was handed in) and lets
    /// time pass to `time`; returns the crossings' region events and
    /// warning decisions. Without a crossings file it does nothing.
    public func process(fixes: [(fix: LocationFix, receivedAt: Double)], at time: Double) -> [PipelineEvent] {
        guard var monitor = crossingMonitor else { return [] }
        var regionEvents: [RegionEvent] = []
        for (fix, receivedAt) in fixes { regionEvents += monitor.observe(fix, at: receivedAt) }
        regionEvents += monitor.advance(to: time)
        crossingMonitor = monitor
        let inside = monitor.crossingsInside
        let decisions = crossingPolicy.evaluate(
            events: regionEvents, beaconsInRegions: inside, at: time, distracted: tracker.isDistracted, smoothedScore: tracker.smoothedScore,
            walking: walking.isWalking, snoozed: warningsSnoozed, screen: screen)
        return output(regionEvents: regionEvents, decisions: decisions, inside: inside, fromCrossings: true)
    }

    /// Region events, decisions and the warnings among them, in that order.
    private func output(
        regionEvents: [RegionEvent], decisions: [WarningDecision], inside: [(region: BeaconRegion, beacon: BeaconStatus)], fromCrossings: Bool
    ) -> [PipelineEvent] {
        var output = regionEvents.map(PipelineEvent.region)
        for var decision in decisions {
            counters.decisions += 1
            // The other side warned at this place a moment ago (only with a crossings file).
            if decision.outcome == .warned, let other = fromCrossings ? lastBeaconWarning : lastCrossingWarning,
                decision.time - other < configuration.warning.cooldown
            {
                decision.outcome = .coolingDown
            }
            output.append(.decision(decision))
            guard decision.outcome == .warned else { continue }
            if crossingMonitor != nil {
                if fromCrossings { lastCrossingWarning = decision.time } else { lastBeaconWarning = decision.time }
            }
            let body = configuration.warning.body(forWarning: counters.warnings)
            counters.warnings += 1
            let beacon =
                inside.first { $0.region.name == decision.region }?.beacon.identity.description
                ?? regionEvents.compactMap {
                    if case .entered(let r, let b, _) = $0, r.name == decision.region { b.identity.description } else { nil }
                }.first
                ?? ""
            output.append(
                .warning(
                    Warning(
                        time: decision.time, region: decision.region, beacon: beacon, rssi: decision.rssi, proximity: decision.proximity,
                        score: tracker.latestScore, smoothedScore: tracker.smoothedScore, title: configuration.warning.title,
                        body: body, trigger: decision.trigger)))
        }
        return output
    }

    /// The phone's screen state from `time` on (the combined answer of the
    /// screen sources). Returns the change, if it is one; a change to "not
    /// in use" after a warning, with the gate on, says that the warning's
    /// buzz and banner should end.
    public func process(screen state: ScreenState, at time: Double) -> [PipelineEvent] {
        guard state != screen else { return [] }
        let gate = configuration.warning.onlyWhileScreenOn
        let ends = counters.warnings > 0 && gate.holdsBack(state) && !gate.holdsBack(screen)
        let change = ScreenChange(time: time, from: screen, to: state, endsWarnings: ends)
        screen = state
        var output: [PipelineEvent] = [.screen(change)]
        updateWarnable(at: time, into: &output)
        return output
    }
}
