import Foundation
import HeadsUpBeacons
import HeadsUpCrossings
import HeadsUpData
import HeadsUpPipeline
import HeadsUpSensors
import HeadsUpSystem

/// `headsup live --simulate`: the live job on a recorded walk instead of
/// IIO and BlueZ, so it can be seen on any machine. The motion comes from
/// the scenario's session and the beacons from its beacon file, played in
/// real time or `speed` times faster; everything else (the session, sinks,
/// status screen, counters) is the live code path.
public enum Simulation {
    /// The pipeline's clock for a simulation: data time, running `speed`
    /// times as fast as the monotonic clock, from 0 at the start.
    public struct ScaledClock: MonotonicClock {
        let base: any MonotonicClock
        let origin: Double
        let speed: Double

        public init(base: any MonotonicClock = SystemMonotonicClock(), speed: Double) {
            self.base = base
            origin = base.now()
            self.speed = speed
        }

        public func now() -> Double { (base.now() - origin) * speed }
    }

    /// A scenario's recording as 50 Hz samples, handed out as data time passes.
    public final class RecordedMotion: MotionSource {
        private let events: [ResampledEvent]
        private let clock: any MonotonicClock
        private var next = 0
        public private(set) var latest: [SensorKind: SIMD3<Double>] = [:]
        /// What reading the recording left out.
        public let leftOut: SessionStream.LeftOut

        /// `session` read and resampled now; times start at 0.
        public init(
            session path: String, csv: SessionCSVOptions, resampling: ResamplingConfiguration = .init(), clock: any MonotonicClock
        ) throws(SessionCSVError) {
            var stream = try SessionStream(path: path, csv: csv, resampling: resampling)
            var events: [ResampledEvent] = []
            while var sample = try stream.read() {
                sample.time -= stream.origin!
                stream.push(sample) { events.append($0) }
            }
            stream.finish { events.append($0) }
            self.events = events
            self.clock = clock
            leftOut = stream.leftOut
        }

        /// Every sample of the recording has been handed out.
        public var finished: Bool { next == events.count }
        public var summary: String { "samples \(next) of \(events.count) (recorded)" }

        public func start() {}
        public func stop() {}

        public func poll(timeout: Double) -> [ResampledEvent] {
            var due: [ResampledEvent] = []
            let deadline = clock.now()
            while next < events.count {
                if case .sample(let sample, _) = events[next], sample.time > deadline { break }
                if case .sample(let sample, _) = events[next] {
                    latest[.accelerometer] = sample.acceleration
                    latest[.gyroscope] = sample.rotationRate
                    latest[.magnetometer] = sample.magneticField
                }
                due.append(events[next])
                next += 1
            }
            if due.isEmpty, !finished { usleep(useconds_t(min(timeout, 0.05) * 1e6)) }
            return due
        }
    }

    /// Time-ordered recorded items handed out once data time reaches each
    /// one's `time` (the beacon file's sightings, the track's fixes).
    struct DueByTime<Item> {
        let items: [Item]
        let time: (Item) -> Double
        private(set) var next = 0

        init(_ items: [Item], time: @escaping (Item) -> Double) {
            self.items = items
            self.time = time
        }

        var count: Int { items.count }

        mutating func take(until now: Double) -> [Item] {
            let start = next
            while next < items.count, time(items[next]) <= now { next += 1 }
            return Array(items[start..<next])
        }
    }

    /// A scenario's beacon file, its sightings handed out as data time passes.
    public final class RecordedBeacons: BeaconSource {
        private var sightings: DueByTime<BeaconSighting>
        private let clock: any MonotonicClock

        public init(_ scenario: BeaconScenario, clock: any MonotonicClock) {
            sightings = DueByTime(scenario.sightings) { $0.time }
            self.clock = clock
        }

        public var summary: String { "\(sightings.next) of \(sightings.count) recorded sightings" }
        public func start() throws {}
        public func stop() {}

        public func poll(timeout: Double) throws -> [BeaconSighting] { sightings.take(until: clock.now()) }
    }

    /// A scenario's location track, its fixes handed out as data time passes.
    public final class RecordedLocations: LocationSource {
        private var fixes: DueByTime<LocationFix>
        private let clock: any MonotonicClock

        public init(_ track: LocationTrack, clock: any MonotonicClock) {
            fixes = DueByTime(track.fixes) { $0.time }
            self.clock = clock
        }

        public var status: String {
            fixes.next == 0 ? "no fix yet (recorded track)" : fixes.next == fixes.count ? "track ended" : "fixes (recorded track)"
        }
        public var summary: String { "\(fixes.next) of \(fixes.count) recorded fixes" }
        public func start() {}
        public func stop() {}

        public func poll() -> [LocationFix] { fixes.take(until: clock.now()) }
    }
}
