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

    /// A scenario's beacon file, its sightings handed out as data time passes.
    public final class RecordedBeacons: BeaconSource {
        private let sightings: [BeaconSighting]
        private let clock: any MonotonicClock
        private var next = 0

        public init(_ scenario: BeaconScenario, clock: any MonotonicClock) {
            sightings = scenario.sightings
            self.clock = clock
        }

        public var summary: String { "\(next) of \(sightings.count) recorded sightings" }
        public func start() throws {}
        public func stop() {}

        public func poll(timeout: Double) throws -> [BeaconSighting] {
            let now = clock.now()
            var due: [BeaconSighting] = []
            while next < sightings.count, sightings[next].time <= now {
                due.append(sightings[next])
                next += 1
            }
            return due
        }
    }

    /// A scenario's location track, its fixes handed out as data time passes.
    public final class RecordedLocations: LocationSource {
        private let fixes: [LocationFix]
        private let clock: any MonotonicClock
        private var next = 0

        public init(_ track: LocationTrack, clock: any MonotonicClock) {
            fixes = track.fixes
            self.clock = clock
        }

        public var status: String { next == 0 ? "no fix yet (recorded track)" : next == fixes.count ? "track ended" : "fixes (recorded track)" }
        public var summary: String { "\(next) of \(fixes.count) recorded fixes" }
        public func start() {}
        public func stop() {}

        public func poll() -> [LocationFix] {
            let now = clock.now()
            var due: [LocationFix] = []
            while next < fixes.count, fixes[next].time <= now {
                due.append(fixes[next])
                next += 1
            }
            return due
        }
    }
}
