import HeadsUpCrossings
import HeadsUpData
import HeadsUpNotify
import HeadsUpPipeline

/// `headsup replay` as one library call: a scenario's session, beacon
/// sightings and screen track through the configured pipeline, in data time. Unpaced, its
/// events are the same byte for byte on every run (the bundled scenarios'
/// expected.jsonl); the caller formats, prints and paces them.
public struct ScenarioReplay {
    public var scenario: Scenario
    /// How the session CSV is read (the model's axis convention is added at run).
    public var csv: SessionCSVOptions
    public var resampling: ResamplingConfiguration
    /// Play the session and its sightings this many times back to back (a soak).
    public var repeats: Int

    public init(scenario: Scenario, csv: SessionCSVOptions = .init(), resampling: ResamplingConfiguration = .init(), repeats: Int = 1) {
        self.scenario = scenario
        self.csv = csv
        self.resampling = resampling
        self.repeats = repeats
    }

    /// `layers` with the scenario's regions in place, when it has a beacon
    /// file: its sightings name its own beacons, which the configured regions
    /// would not match. Regions given on the command line
    /// (`keepRegions`) are kept instead.
    /// The folder's crossings file, likewise, becomes `crossings.file`
    /// unless one is given on the command line (`keepCrossings`).
    public func settings(_ layers: LayeredSettings, keepRegions: Bool, keepCrossings: Bool = false) throws(SettingsError) -> LayeredSettings {
        var layers = layers
        if let crossingsPath = scenario.crossingsPath, !keepCrossings {
            try layers.set("crossings.file", .string(crossingsPath), source: crossingsPath)
        }
        guard let beaconsPath = scenario.beaconsPath, !keepRegions else { return layers }
        try layers.set("beacons.regions", .list(scenario.beacons.regions.map(\.spec)), source: beaconsPath)
        return layers
    }

    /// Plays the scenario through a pipeline made from `setup`: `emit` gets
    /// each event and the session's start time, `pace` the session-relative
    /// data time reached; warnings also go to `dispatcher` when given.
    public func run(
        setup: RuntimeSetup, dispatcher: NotificationDispatcher? = nil, pace: (Double) -> Void = { _ in },
        emit: (PipelineEvent, Double) -> Void
    ) throws -> ReplaySummary {
        let pipeline = HeadsUpPipeline(scorer: setup.scorer, configuration: try setup.pipelineConfiguration())
        var options = csv
        options.targetConvention = setup.settings.sensors.convention
        var stream = try SessionStream(path: scenario.session, csv: options, resampling: resampling)
        var replay = SessionReplay(pipeline: pipeline, scenario: scenario.beacons)
        replay.repeats = repeats
        replay.screen = scenario.screen
        replay.locations = scenario.locations
        try replay.run(
            &stream, pace: pace,
            emit: { event, origin in
                emit(event, origin)
                dispatcher?.forward(event)
            })
        dispatcher?.finish()
        return ReplaySummary(
            counters: pipeline.counters, reading: stream.reader?.report, leftOut: stream.leftOut, modelConvention: setup.settings.sensors.convention,
            locations: pipeline.crossingMonitor?.counters)
    }
}

/// What a replay went through, and what reading its session converted or left out.
public struct ReplaySummary: Sendable, CustomStringConvertible {
    public var counters: HeadsUpPipeline.Counters
    public var reading: SessionReadReport?
    public var leftOut: SessionStream.LeftOut
    public var modelConvention: AxisConvention
    /// What became of the location fixes, when a crossings file was in use.
    public var locations: CrossingMonitor.Counters?

    /// One line: the counts, the conversions made and what was left out.
    public var description: String {
        let c = counters
        var line =
            "replay: \(c.samples) samples, \(c.windowsScored) windows scored, \(c.windowsSkipped) skipped, \(c.decisions) decisions, \(c.warnings) warnings"
        line += LiveSession.unscored(c)
        if let report = reading, report.convertedUnits {
            line +=
                " (converted: timestamps in \(report.timeUnit.unit.name), acceleration in \(report.accelerationUnit.unit.name), recorded in the \(report.axisConvention.unit.name) convention (\(report.axisConvention.reason)) for a \(modelConvention.name) model)"
        }
        if let l = locations {
            line +=
                "; locations: \(l.fixes) fixes, \(l.used) used, \(l.tooInaccurate) too inaccurate, \(l.tooOld) too old, \(l.tooFast) too fast, \(l.invalid) invalid; \(l.entries) crossings entered"
        }
        return line + leftOut.notes.map { "; " + $0 }.joined()
    }
}
