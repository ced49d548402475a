import Foundation
import HeadsUpBeacons
import HeadsUpData
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpSystem
import Logging

/// HeadsUp's main job, one step at a time: motion → pipeline → beacons →
/// warnings to the dispatcher → the service manager's watchdog. The live
/// counterpart of `SessionReplay`: its inputs, sinks and clocks come from
/// outside, so a test drives it with synthetic sources and time, and
/// `headsup live` with IIO, BlueZ and systemd.
public final class LiveSession {
    /// The parts a session runs on.
    public struct Parts {
        public var motion: any MotionSource
        /// Nil when no region is configured: scoring only.
        public var beacons: (any BeaconSource)?
        public var dispatcher: NotificationDispatcher?
        public var service: (any ServiceNotifier)?
        /// The pipeline's time base: the sensors' samples are stamped on
        /// CLOCK_MONOTONIC, and so are beacon sightings, scoring latency and
        /// the watchdog rhythm. A wall clock that steps changes none of them.
        public var clock: any MonotonicClock
        /// For the snooze's end, which a person reads and a restart keeps.
        public var wallClock: any WallClock
        /// The socket `headsup snooze` and `headsup status` talk to; nil: none.
        public var control: ControlSocket?
        /// Where a snooze is kept across restarts; nil: it is not kept.
        public var snoozeStore: SnoozeStore?
        /// Requests from other threads (a notification's buttons).
        public var inbox: ControlInbox
        /// Whether the phone is in use; nil: never asked (`only_while_screen_on: false`, or a board).
        public var screen: (any ScreenSource)?
        /// Positions for the mapped crossings; nil: no crossings file, or `location.source: none`.
        public var locations: (any LocationSource)?

        public init(
            motion: any MotionSource, beacons: (any BeaconSource)?, dispatcher: NotificationDispatcher?, service: (any ServiceNotifier)?,
            clock: any MonotonicClock = SystemMonotonicClock(), wallClock: any WallClock = SystemWallClock(), control: ControlSocket? = nil,
            snoozeStore: SnoozeStore? = nil, inbox: ControlInbox = ControlInbox(), screen: (any ScreenSource)? = nil,
            locations: (any LocationSource)? = nil
        ) {
            self.screen = screen
            self.locations = locations
            self.motion = motion
            self.beacons = beacons
            self.dispatcher = dispatcher
            self.service = service
            self.clock = clock
            self.wallClock = wallClock
            self.control = control
            self.snoozeStore = snoozeStore
            self.inbox = inbox
        }
    }

    public let pipeline: HeadsUpPipeline
    public let parts: Parts
    private let timedScorer: TimedScorer
    let logger: Logger
    /// The user's snooze, if any.
    public internal(set) var snoozeClock = SnoozeClock()
    /// When `start` ran, on the pipeline's clock.
    private(set) var startedAt = 0.0
    public private(set) var latencies = LatencyRecorder()
    /// Seconds each step waits for motion when the motion source offers
    /// nothing to block on (a simulation, a test's script).
    public var pollTimeout = 0.05
    /// The longest a step blocks on its inputs when it can: the beat for the
    /// clock-driven work (region exits, the watchdog, a snooze that ends).
    public var maximumWait = 0.5
    /// The shortest time between two reads of BlueZ. A busy street sends
    /// hundreds of updates a second; read as they come, each one wakes the
    /// process. For this long after a read the step does not wait on BlueZ's
    /// socket, so what arrives meanwhile queues in the socket and is read
    /// all at once by the first step after it (the sensors' bursts wake the
    /// loop several times a second, the beat at `maximumWait`): no wake-up
    /// of its own, whatever the rate. A lone advertisement after a quiet
    /// spell is read at once. Region entries come after seconds of dwell,
    /// so a quarter second is not felt.
    public var beaconReadInterval = 0.25
    private var lastPing: Double?
    /// When BlueZ was last read.
    private var lastBeaconRead = -Double.infinity
    /// The location source's state last logged, so each change is said once.
    public private(set) var locationState: String?

    public init(scorer: any WindowScorer, configuration: HeadsUpPipeline.Configuration, parts: Parts, logger: Logger) {
        // Scoring takes real time, whatever the pipeline's clock (a simulation's runs faster).
        timedScorer = TimedScorer(inner: scorer, clock: SystemMonotonicClock())
        pipeline = HeadsUpPipeline(scorer: timedScorer, configuration: configuration)
        self.parts = parts
        self.logger = logger
    }

    /// The current time on the pipeline's time base.
    public var now: Double { parts.clock.now() }

    /// Starts the inputs and tells the service manager it is ready.
    public func start() throws(LiveSessionError) {
        startedAt = now
        restoreSnooze()
        parts.motion.start()
        startScreen()
        parts.locations?.start()
        if let beacons = parts.beacons {
            do { try beacons.start() } catch { throw .beacons("\(error)") }
        } else if parts.locations == nil {
            logger.warning("no beacon regions configured (beacons.regions or --region): scoring only, no warnings")
        }
        parts.control?.start(posting: parts.inbox)
        parts.service?.ready()
    }

    /// One pass: waits for an input (motion, BlueZ, the control socket; at
    /// most `maximumWait`), scores what is ready, feeds the beacon
    /// sightings, hands warnings to the dispatcher and pings the watchdog.
    /// Returns the events, for the screen or JSON. The process sleeps
    /// between inputs instead of waking on a timer: on a board, the IIO
    /// buffers' watermarks and the beacons' advertisements set its pace.
    public func step() -> [PipelineEvent] {
        let samples: [ResampledEvent]
        let beaconDescriptor = parts.beacons?.readinessDescriptor
        if let motion = parts.motion.readinessDescriptor {
            var inputs =
                [motion, parts.inbox.readinessDescriptor].compactMap { $0 } + (parts.screen?.readinessDescriptors ?? [])
                + (parts.locations?.readinessDescriptors ?? [])
            if let beaconDescriptor, now - lastBeaconRead >= beaconReadInterval { inputs.append(beaconDescriptor) }
            waitUntilReadable(inputs, timeout: maximumWait)
            samples = parts.motion.poll(timeout: 0)
        } else {
            samples = parts.motion.poll(timeout: pollTimeout)
        }
        takeControlRequests()
        var events = parts.screen.map { pipeline.process(screen: $0.poll(), at: now) } ?? []
        events += pipeline.process(samples: samples)
        for duration in timedScorer.drain() { latencies.add(duration) }
        var sightings: [BeaconSighting] = []
        let time = now
        if let beacons = parts.beacons, beaconsDue(at: time, polled: beaconDescriptor == nil || parts.motion.readinessDescriptor == nil) {
            do { sightings = try beacons.poll(timeout: 0) } catch { logger.warning("beacons: \(error)") }
            lastBeaconRead = time
        }
        // Sightings arrive within this pass: stamp them on the samples' time base.
        for index in sightings.indices { sightings[index].time = time }
        events += pipeline.process(sightings: sightings, at: time)
        if let locations = parts.locations {
            // Fixes keep their own time (their age counts); they arrived within this pass.
            events += pipeline.process(fixes: locations.poll().map { ($0, time) }, at: time)
            if locations.status != locationState {
                locationState = locations.status
                logger.notice("location: \(locations.status)")
            }
        }
        for event in events { report(event) }
        pingWatchdog()
        return events
    }

    /// Whether this step reads BlueZ: a source with nothing to block on
    /// every pass, otherwise once the interval since the last read has
    /// passed (reading an empty socket is one failed recvmsg, no wake-up).
    private func beaconsDue(at time: Double, polled: Bool) -> Bool {
        polled || time - lastBeaconRead >= beaconReadInterval
    }

    private func report(_ event: PipelineEvent) {
        parts.dispatcher?.forward(event)
        switch event {
        case .warning(let warning):
            logger.notice("warning at \(warning.region): \(warning.title) \(warning.body)")
        case .screen(let change):
            reportScreen(change)
        case .windowUnscored(_, let reason):
            // The first of each reason says so; the summary counts the rest (a broken driver sends two a second).
            let c = pipeline.counters
            let count = reason == .nonFiniteSamples ? c.windowsWithNonFiniteSamples : c.windowsWithNonFiniteScore
            if count == 1 { logger.warning("a window was not scored: \(reason.text); such windows are skipped and counted in the summary") }
        case .decision(let d):
            logger.info(
                "decision \(d.region) on \(d.trigger): \(d.outcome.rawValue), distracted \(d.distracted), smoothed score \(d.smoothedScore ?? -1), rssi \(d.rssi), \(d.proximity.rawValue)"
            )
        default:
            break
        }
    }

    private func pingWatchdog() {
        guard let service = parts.service, let interval = service.watchdogInterval else { return }
        let now = parts.clock.now()
        if let lastPing, now - lastPing < interval { return }
        service.watchdog()
        lastPing = now
    }

    /// Stops the inputs and lets the dispatcher deliver what it holds.
    public func stop() {
        parts.service?.stopping()
        parts.control?.stop()
        parts.beacons?.stop()
        parts.motion.stop()
        parts.screen?.stop()
        parts.locations?.stop()
        parts.dispatcher?.finish()
    }

    /// One line of counters, for SIGUSR1 and the exit summary.
    public var summary: String {
        let p = pipeline.counters
        func ms(_ value: Double?) -> String { value.map { String(format: "%.2f ms", $0 * 1000) } ?? "-" }
        var line =
            "windows scored \(p.windowsScored), skipped \(p.windowsSkipped)\(Self.unscored(p)); scoring latency p50 \(ms(latencies.percentile(50))) "
            + "p90 \(ms(latencies.percentile(90))) p99 \(ms(latencies.percentile(99))); \(parts.motion.summary); warnings \(p.warnings)"
        if let n = parts.dispatcher?.counters { line += "; notifications sent \(n.sent), failed \(n.failed)" }
        if let beacons = parts.beacons {
            line += "; beacons: \(beacons.summary), \(pipeline.monitor.ignoredSightings) sightings of beacons in no region"
        }
        if let locations = parts.locations, let c = pipeline.crossingMonitor?.counters {
            line +=
                "; locations: \(locations.summary), \(c.used) fixes used, \(c.tooInaccurate) too inaccurate, \(c.tooOld) too old, \(c.tooFast) too fast; \(c.entries) crossings entered"
        }
        return line
    }
}

extension LiveSession {
    /// ", unscored N (non-finite samples), M (non-finite scores)" when any were.
    static func unscored(_ c: HeadsUpPipeline.Counters) -> String {
        let parts = [(c.windowsWithNonFiniteSamples, "non-finite samples"), (c.windowsWithNonFiniteScore, "non-finite scores")].filter { $0.0 > 0 }
        return parts.isEmpty ? "" : ", unscored " + parts.map { "\($0.0) (\($0.1))" }.joined(separator: ", ")
    }
}

/// Why a live session could not start.
public enum LiveSessionError: Error, Sendable, CustomStringConvertible {
    case setup(RuntimeSetupError)
    case sensors(String)
    case beacons(String)
    /// A `--simulate` scenario that cannot be read.
    case scenario(String)

    public var description: String {
        switch self {
        case .setup(let error): error.description
        case .scenario(let message): message
        case .sensors(let message): "sensors: \(message)"
        case .beacons(let message): "beacons: \(message). HeadsUp needs bluetoothd (BlueZ) on the system bus for its regions."
        }
    }
}
