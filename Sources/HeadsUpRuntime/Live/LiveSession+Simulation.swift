import Foundation
import HeadsUpCrossings
import HeadsUpData
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpSystem
import Logging

extension LiveSession {
    /// A session on a recorded scenario folder (session.csv and
    /// beacons.csv): ``Simulation``'s sources and clock, the configured
    /// sinks, no service manager. Its regions are the scenario's unless configured.
    /// `csv` and `resampling` read the recording as `replay` would (the
    /// model's convention is set here).
    public static func simulating(
        _ scenario: Scenario, speed: Double, setup: RuntimeSetup, csv: SessionCSVOptions = .init(),
        resampling: ResamplingConfiguration = .init(), logger: Logger
    ) throws(LiveSessionError) -> (session: LiveSession, motion: Simulation.RecordedMotion) {
        let clock = Simulation.ScaledClock(speed: speed)
        guard scenario.isFolder else {
            throw .scenario(
                "\(scenario.session): not a scenario folder: --simulate takes a folder holding session.csv and beacons.csv, or a bundled scenario's name"
            )
        }
        let inbox = ControlInbox()
        var (configuration, sinks) = try pipelineAndSinks(setup, logger: logger, inbox: inbox)
        if configuration.regions.isEmpty { configuration.regions = scenario.beacons.regions }
        // The folder's crossings unless crossings.file is set; positions from its track.
        if configuration.crossings == nil, let path = scenario.crossingsPath, setup.settings.location.source != .none {
            do { configuration.crossings = CrossingGrid(try CrossingsFile.read(path: path).crossings) } catch { throw .scenario("\(error)") }
        }
        let motion: Simulation.RecordedMotion
        do {
            var options = csv
            options.targetConvention = setup.settings.sensors.convention
            motion = try Simulation.RecordedMotion(session: scenario.session, csv: options, resampling: resampling, clock: clock)
        } catch {
            throw .scenario("\(error)")
        }
        let dispatcher = NotificationDispatcher(sinks: sinks, retries: setup.settings.notifications.retries, logger: logger)
        var parts = Parts(
            motion: motion, beacons: Simulation.RecordedBeacons(scenario.beacons, clock: clock), dispatcher: dispatcher, service: nil, clock: clock,
            inbox: inbox,
            locations: simulatedLocations(scenario, crossings: configuration.crossings != nil, setup: setup, clock: clock, logger: logger))
        parts.attachControl(environment: ProcessInfo.processInfo.environment, logger: logger)
        parts.attachScreen(configuration.warning.onlyWhileScreenOn, environment: ProcessInfo.processInfo.environment, logger: logger)
        return (LiveSession(scorer: setup.scorer, configuration: configuration, parts: parts, logger: logger), motion)
    }

    /// The folder's recorded track when it has one; otherwise, with a
    /// crossings file, the configured live source (GeoClue2): a recorded
    /// walk with live positions, as the end-to-end tests run it.
    static func simulatedLocations(
        _ scenario: Scenario, crossings: Bool, setup: RuntimeSetup, clock: any MonotonicClock, logger: Logger
    ) -> (any LocationSource)? {
        guard crossings else { return nil }
        if !scenario.locations.fixes.isEmpty { return Simulation.RecordedLocations(scenario.locations, clock: clock) }
        return locationSource(setup.settings.location, crossings: true, clock: clock, logger: logger)
    }
}
