import Foundation
import HeadsUpNotify
import HeadsUpPipeline
import Logging

extension LiveSession {
    /// A session on a recorded scenario (a folder with session.csv and
    /// beacons.csv): ``Simulation``'s sources and clock, the configured sinks,
    /// no service manager. Its regions are the scenario's unless configured.
    public static func simulating(
        scenario folder: String, speed: Double, setup: RuntimeSetup, logger: Logger
    ) throws(LiveSessionError) -> (session: LiveSession, motion: Simulation.RecordedMotion) {
        let clock = Simulation.ScaledClock(speed: speed)
        let scenario: BeaconScenario
        do {
            let text = try String(contentsOfFile: folder + "/beacons.csv", encoding: .utf8)
            scenario = try BeaconScenario.parse(text, path: folder + "/beacons.csv")
        } catch {
            throw .sensors("\(folder): not a scenario folder (session.csv and beacons.csv): \(error)")
        }
        let inbox = ControlInbox()
        var (configuration, sinks) = try pipelineAndSinks(setup, logger: logger, inbox: inbox)
        if configuration.regions.isEmpty { configuration.regions = scenario.regions }
        let motion: Simulation.RecordedMotion
        do {
            motion = try Simulation.RecordedMotion(
                session: folder + "/session.csv", csv: .init(targetConvention: setup.settings.sensors.convention), clock: clock)
        } catch {
            throw .sensors("\(error)")
        }
        let dispatcher = NotificationDispatcher(sinks: sinks, retries: setup.settings.notifications.retries, logger: logger)
        var parts = Parts(
            motion: motion, beacons: Simulation.RecordedBeacons(scenario, clock: clock), dispatcher: dispatcher, service: nil, clock: clock,
            inbox: inbox)
        parts.attachControl(environment: ProcessInfo.processInfo.environment, logger: logger)
        return (LiveSession(scorer: setup.scorer, configuration: configuration, parts: parts, logger: logger), motion)
    }
}
