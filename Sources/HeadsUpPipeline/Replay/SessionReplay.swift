import HeadsUpBeacons
import HeadsUpCrossings
import HeadsUpData

/// Runs a recorded session and a beacon scenario through the pipeline in
/// data time. With no pacing it is a pure function of its inputs (byte for
/// byte the same events every run); `pace` lets the caller sleep to replay
/// at N× real time.
public struct SessionReplay {
    public let pipeline: HeadsUpPipeline
    public let scenario: BeaconScenario
    /// Seconds of data fed per step (the pipeline sees data in these slices).
    public var step: Double = 0.1
    /// Play the session (and its scenario) this many times back to back, as
    /// one continuous stream: a soak test of hours or days of data.
    public var repeats = 1
    /// The screen's state over the session (first round only); empty: the
    /// pipeline is never told, as on a board with no screen source.
    public var screen = ScreenTrack()
    /// The phone's positions over the session (first round only); empty,
    /// or a pipeline without crossings: no location input.
    public var locations = LocationTrack()

    public init(pipeline: HeadsUpPipeline, scenario: BeaconScenario) {
        self.pipeline = pipeline
        self.scenario = scenario
    }

    /// Plays `stream` (a session) through; `emit` gets each event and the
    /// session's start time (its first sample), `pace` the session-relative
    /// data time reached. What reading left out is the stream's to report.
    public func run(
        _ stream: inout SessionStream, pace: (Double) -> Void = { _ in }, emit: (PipelineEvent, Double) -> Void
    ) throws(SessionCSVError) {
        var origin: Double?
        var pending: [ResampledEvent] = []
        var sightingIndex = 0
        var screenIndex = 0
        var locationIndex = 0
        var sightingRound = 0
        var period = 0.0
        var stepEnd = 0.0
        // The end of the last step that carried samples or sightings.
        var lastInput = 0.0
        func flush(until end: Double) {
            if !pending.isEmpty { lastInput = end }
            for event in pipeline.process(samples: pending) { emit(event, origin ?? 0) }
            pending.removeAll(keepingCapacity: true)
            while screenIndex < screen.changes.count, screen.changes[screenIndex].time < end {
                let change = screen.changes[screenIndex]
                for event in pipeline.process(screen: change.state, at: (origin ?? 0) + change.time) { emit(event, origin ?? 0) }
                screenIndex += 1
            }
            var due: [BeaconSighting] = []
            while true {
                if sightingIndex == scenario.sightings.count, sightingRound + 1 < repeats, period > 0 {
                    sightingRound += 1
                    sightingIndex = 0
                }
                guard sightingIndex < scenario.sightings.count else { break }
                let offset = Double(sightingRound) * period
                guard scenario.sightings[sightingIndex].time + offset < end else { break }
                var sighting = scenario.sightings[sightingIndex]
                sighting.time += (origin ?? 0) + offset
                due.append(sighting)
                sightingIndex += 1
            }
            if !due.isEmpty { lastInput = end }
            for event in pipeline.process(sightings: due, at: (origin ?? 0) + end) { emit(event, origin ?? 0) }
            if pipeline.crossingMonitor != nil {
                var fixes: [(fix: LocationFix, receivedAt: Double)] = []
                while locationIndex < locations.fixes.count, locations.fixes[locationIndex].time < end {
                    var fix = locations.fixes[locationIndex]
                    fix.time += origin ?? 0
                    fixes.append((fix, fix.time))
                    locationIndex += 1
                }
                if !fixes.isEmpty { lastInput = end }
                for event in pipeline.process(fixes: fixes, at: (origin ?? 0) + end) { emit(event, origin ?? 0) }
            }
            pace(end)
        }
        /// The session-relative time of the next sighting to come, this round's or the next's.
        func nextSightingTime() -> Double {
            if sightingIndex < scenario.sightings.count {
                return scenario.sightings[sightingIndex].time + Double(sightingRound) * period
            }
            guard let first = scenario.sightings.first, sightingRound + 1 < repeats, period > 0 else { return .infinity }
            return first.time + Double(sightingRound + 1) * period
        }
        /// Flushes every step that ends at or before `time`. A stretch with
        /// no input is stepped through for ``quietSpan`` (every beacon has
        /// left and every dwell has passed by then) and crossed at once after
        /// it: a gap of days, or a wild timestamp, costs no more than that.
        func advance(through time: Double) {
            while time >= stepEnd {
                flush(until: stepEnd)
                stepEnd += step
                if stepEnd - lastInput > Self.quietSpan {
                    let skipped = ((min(time, nextSightingTime()) - stepEnd) / step).rounded(.down)
                    if skipped > 0 { stepEnd += skipped * step }
                }
            }
        }
        // Repeats replay the session from memory, each round shifted by one period.
        var kept: [MotionSample] = []
        var round = 0
        var index = 0
        func nextSample() throws(SessionCSVError) -> MotionSample? {
            if round == 0 {
                if let sample = try stream.read() {
                    if repeats > 1 { kept.append(sample) }
                    return sample
                }
                guard repeats > 1, let first = kept.first, let last = kept.last else { return nil }
                period = last.time - first.time + 1.0 / Double(stream.resampler.configuration.rate)
                round = 1
            }
            if index == kept.count {
                round += 1
                index = 0
            }
            guard round < repeats, index < kept.count else { return nil }
            var sample = kept[index]
            sample.time += Double(round) * period
            index += 1
            return sample
        }
        while let sample = try nextSample() {
            if origin == nil {
                origin = sample.time
                stepEnd = step
            }
            // A sample the resampler will drop (back in time, or no clock's time) does not move the clock.
            if stream.resampler.accepts(time: sample.time) { advance(through: sample.time - origin!) }
            stream.push(sample) { pending.append($0) }
        }
        stream.finish { pending.append($0) }
        // Let the scenario play out past the last sample.
        let lastFix = pipeline.crossingMonitor == nil ? 0 : (locations.fixes.last?.time ?? 0) + step
        let last = max(stepEnd, (scenario.sightings.last?.time ?? 0) + Double(max(0, repeats - 1)) * period + step, lastFix)
        advance(through: last + 1e-9)
    }

    /// Seconds without samples or sightings after which nothing in the
    /// pipeline can change until the next input: longer than the largest
    /// exit timeout (600 s) and dwell (60 s) the settings allow.
    public static let quietSpan = 700.0
}
