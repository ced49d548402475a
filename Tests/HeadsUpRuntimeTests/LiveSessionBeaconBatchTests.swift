import HeadsUpBeacons
import HeadsUpData
import HeadsUpRuntime
import HeadsUpSensors
import HeadsUpSystem
import Logging
import Testing

/// Synthetic time in steps of 1/16 s, exact in binary: the test counts
/// reads at interval boundaries, where a rounding error would move one.
final class StepTime: @unchecked Sendable {
    private(set) var seconds = 0.0
    func advance() { seconds += 0.0625 }
    var monotonic: some MonotonicClock { Clock(time: self) }

    struct Clock: MonotonicClock, @unchecked Sendable {
        let time: StepTime
        func now() -> Double { time.seconds }
    }
}

/// Motion whose descriptor is always readable (the wait never blocks); each
/// poll is one step of synthetic time and no samples.
final class ReadyMotion: MotionSource {
    let time: StepTime
    let signal = ReadinessSignal()

    init(time: StepTime) {
        self.time = time
        signal.raise()
    }

    func start() {}
    func stop() {}
    var latest: [SensorKind: SIMD3<Double>] { [:] }
    var summary: String { "" }
    var readinessDescriptor: Int32? { signal.descriptor }

    func poll(timeout: Double) -> [ResampledEvent] {
        time.advance()
        return []
    }
}

/// A BlueZ whose socket always has messages waiting: it counts its reads.
final class BusyBeacons: BeaconSource {
    let signal = ReadinessSignal()
    private(set) var reads: [Double] = []
    let time: StepTime

    init(time: StepTime) {
        self.time = time
        signal.raise()
    }

    func start() throws {}
    func stop() {}
    var summary: String { "" }
    var readinessDescriptor: Int32? { signal.descriptor }

    func poll(timeout: Double) throws -> [BeaconSighting] {
        reads.append(time.monotonic.now())
        return []
    }
}

@Suite("LiveSession reads a busy BlueZ in batches")
struct LiveSessionBeaconBatchTests {
    func run(interval: Double, steps: Int) throws -> [Double] {
        let time = StepTime()
        let beacons = BusyBeacons(time: time)
        let parts = LiveSession.Parts(
            motion: ReadyMotion(time: time), beacons: beacons, dispatcher: nil, service: nil, clock: time.monotonic)
        let session = LiveSession(
            scorer: ConstantScorer(value: 0), configuration: .init(), parts: parts, logger: Logger(label: "test"))
        session.beaconReadInterval = interval
        try session.start()
        for _ in 0..<steps { _ = session.step() }
        return beacons.reads
    }

    @Test func aBusyBusIsReadOncePerIntervalNotOncePerStep() throws {
        // 100 steps of 1/16 s: 6.25 s with messages always waiting.
        let reads = try run(interval: 0.25, steps: 100)
        #expect(reads.count == 25, "\(reads.count) reads in 6.25 s")
        let gaps = zip(reads.dropFirst(), reads).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 == 0.25 }, "\(gaps)")
        #expect(reads.first == 0.0625, "the first message is read at once")
    }

    @Test func withoutAnIntervalEveryStepReads() throws {
        #expect(try run(interval: 0, steps: 100).count == 100)
    }
}
