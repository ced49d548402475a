import HeadsUpBeacons
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

    public init(pipeline: HeadsUpPipeline, scenario: BeaconScenario) {
        self.pipeline = pipeline
        self.scenario = scenario
    }

    /// Streams `reader` (a session CSV) through; `emit` gets each event and
    /// the session's start time (its first sample), `pace` the
    /// session-relative data time reached.
    public func run(
        reader: SessionCSVReader, resampling: ResamplingConfiguration = .init(),
        pace: (Double) -> Void = { _ in }, emit: (PipelineEvent, Double) -> Void
    ) throws(SessionCSVError) {
        var resampler = Resampler(configuration: resampling)
        var origin: Double?
        var pending: [ResampledEvent] = []
        var sightingIndex = 0
        var stepEnd = 0.0
        func flush(until end: Double) {
            for event in pipeline.process(samples: pending) { emit(event, origin ?? 0) }
            pending.removeAll(keepingCapacity: true)
            var due: [BeaconSighting] = []
            while sightingIndex < scenario.sightings.count, scenario.sightings[sightingIndex].time < end {
                var sighting = scenario.sightings[sightingIndex]
                sighting.time += origin ?? 0
                due.append(sighting)
                sightingIndex += 1
            }
            for event in pipeline.process(sightings: due, at: (origin ?? 0) + end) { emit(event, origin ?? 0) }
            pace(end)
        }
        while let sample = try reader.next() {
            if origin == nil {
                origin = sample.time
                stepEnd = step
            }
            let relative = sample.time - origin!
            while relative >= stepEnd {
                flush(until: stepEnd)
                stepEnd += step
            }
            resampler.push(sample) { pending.append($0) }
        }
        resampler.finish { pending.append($0) }
        // Let the scenario play out past the last sample.
        let last = max(stepEnd, (scenario.sightings.last?.time ?? 0) + step)
        while stepEnd <= last + 1e-9 {
            flush(until: stepEnd)
            stepEnd += step
        }
    }
}
