import Foundation
import HeadsUpBeacons
import HeadsUpData
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpRuntime
import HeadsUpSensors
import HeadsUpSystem
import Logging
import Synchronization
import Testing

/// Synthetic monotonic time.
final class ManualTime: Sendable {
    let seconds = Mutex<Double>(1_700_000_000)
    func advance(_ delta: Double) { seconds.withLock { $0 += delta } }
    var monotonic: some MonotonicClock { Monotonic(time: self) }

    struct Monotonic: MonotonicClock {
        let time: ManualTime
        func now() -> Double { time.seconds.withLock { $0 } - 1_700_000_000 }
    }
}

/// 50 Hz samples, 0.1 s per poll; the time advances as they are handed out.
final class ScriptedMotion: MotionSource {
    let time: ManualTime
    var started = false, stopped = false
    private var index: Int64 = 0

    init(time: ManualTime) { self.time = time }

    func start() { started = true }
    func stop() { stopped = true }
    var latest: [SensorKind: SIMD3<Double>] { [:] }
    var summary: String { "samples \(index)" }

    func poll(timeout: Double) -> [ResampledEvent] {
        var events: [ResampledEvent] = []
        for _ in 0..<5 {
            time.advance(0.02)
            let now = time.monotonic.now()
            // A walker's bounce, 0.2 g at 1.8 steps a second.
            let sample = MotionSample(
                time: now, acceleration: SIMD3(0, 0, -1 - 0.2 * sin(2 * .pi * 1.8 * now)), rotationRate: .zero, magneticField: .zero)
            events.append(.sample(sample, gridIndex: index))
            index += 1
        }
        return events
    }
}

/// An iBeacon seen at -50 dBm every poll from `from` seconds on.
final class ScriptedBeacons: BeaconSource {
    let time: ManualTime
    let from: Double
    let start0: Double
    static let identity = BeaconIdentity(parsing: "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2")!

    init(time: ManualTime, from: Double) {
        self.time = time
        self.from = from
        start0 = time.monotonic.now()
    }

    func start() throws {}
    func stop() {}
    var summary: String { "scripted" }
    func poll(timeout: Double) throws -> [BeaconSighting] {
        let now = time.monotonic.now()
        guard now - start0 >= from else { return [] }
        return [BeaconSighting(identity: Self.identity, rssi: -50, measuredPower: -59, time: 0)]
    }
}

final class RecordingSink: NotificationSink, @unchecked Sendable {
    let name = "recording"
    let delivered = Mutex<[NotificationMessage]>([])
    let acknowledged = Mutex(0)
    func deliver(_ notification: NotificationMessage) throws { delivered.withLock { $0.append(notification) } }
    func acknowledge() { acknowledged.withLock { $0 += 1 } }
}

final class RecordingService: ServiceNotifier, @unchecked Sendable {
    let watchdogInterval: Double?
    let pings = Mutex<[String]>([])
    init(watchdogInterval: Double?) { self.watchdogInterval = watchdogInterval }
    func ready() { pings.withLock { $0.append("ready") } }
    func watchdog() { pings.withLock { $0.append("watchdog") } }
    func stopping() { pings.withLock { $0.append("stopping") } }
}

struct ConstantScorer: WindowScorer {
    let value: Double
    func score(_ window: MotionWindow) -> Double { value }
}

@Suite("LiveSession: the live job in process, with synthetic inputs and time")
struct LiveSessionTests {
    func session(score: Double, beaconFrom: Double = 6) throws -> (LiveSession, ScriptedMotion, RecordingSink, RecordingService) {
        let time = ManualTime()
        let motion = ScriptedMotion(time: time)
        let sink = RecordingSink()
        let service = RecordingService(watchdogInterval: 1)
        var layers = LayeredSettings()
        try layers.set("beacons.regions", .list(["crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D"]))
        try layers.set("beacons.dwell", .number(0))
        let configuration = try layers.resolved().pipelineConfiguration()
        let parts = LiveSession.Parts(
            motion: motion, beacons: ScriptedBeacons(time: time, from: beaconFrom),
            dispatcher: NotificationDispatcher(sinks: [sink], logger: Logger(label: "test")), service: service, clock: time.monotonic)
        return (
            LiveSession(scorer: ConstantScorer(value: score), configuration: configuration, parts: parts, logger: Logger(label: "test")), motion,
            sink, service
        )
    }

    @Test func aDistractedUserEnteringARegionIsWarnedOnceAndTheSinksGetIt() throws {
        let (session, motion, sink, service) = try session(score: 0.95)
        try session.start()
        var events: [PipelineEvent] = []
        for _ in 0..<90 { events += session.step() }  // 9 s of data: walking from about 5 s, the beacon from 6 s
        session.stop()
        #expect(motion.started && motion.stopped)
        let distracted = events.compactMap { if case .distraction(.becameDistracted(let t)) = $0 { t } else { nil } }
        let warnings = events.compactMap { if case .warning(let w) = $0 { w } else { nil } }
        #expect(distracted.count == 1)
        #expect(warnings.count == 1, "\(events)")
        #expect(warnings.first.map { $0.time > distracted[0] } == true)
        #expect(sink.delivered.withLock { $0.map(\.title) } == ["Beware!"])
        #expect(session.pipeline.counters.windowsScored > 0)
        #expect(session.latencies.percentile(50) != nil)
        // Ready first, a watchdog ping about once a second of (synthetic) time, stopping last.
        let pings = service.pings.withLock { $0 }
        #expect(pings.first == "ready" && pings.last == "stopping")
        #expect((8...10).contains(pings.filter { $0 == "watchdog" }.count), "\(pings)")
    }

    @Test func anAttentiveUserIsNotWarned() throws {
        let (session, _, sink, _) = try session(score: 0.05)
        try session.start()
        var events: [PipelineEvent] = []
        for _ in 0..<90 { events += session.step() }
        session.stop()
        #expect(events.contains { if case .decision(let d) = $0 { d.outcome == .notDistracted } else { false } })
        #expect(!events.contains { if case .warning = $0 { true } else { false } })
        #expect(sink.delivered.withLock { $0.isEmpty })
    }

    @Test func theSummaryCountsWhatHappened() throws {
        let (session, _, _, _) = try session(score: 0.95)
        try session.start()
        for _ in 0..<20 { _ = session.step() }
        session.stop()
        #expect(session.summary.contains("windows scored \(session.pipeline.counters.windowsScored)"))
        #expect(session.summary.contains("samples 100"))
        #expect(session.summary.contains("notifications sent"))
    }
}
