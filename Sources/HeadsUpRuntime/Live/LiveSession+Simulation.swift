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
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
            let data = FileManager.default.contents(atPath: folder + "/beacons.csv")
        else {
            throw .scenario(
                "\(folder): not a scenario folder: --simulate takes a folder holding session.csv and beacons.csv, or a bundled scenario's name")
        }
        do {
            scenario = try BeaconScenario.parse(String(decoding: data, as: UTF8.self), path: folder + "/beacons.csv")
        } catch {
            throw .scenario("\(error)")
        }
        let inbox = ControlInbox()
        var (configuration, sinks) = try pipelineAndSinks(setup, logger: logger, inbox: inbox)
        if configuration.regions.isEmpty { configuration.regions = scenario.regions }
        let motion: Simulation.RecordedMotion
        do {
            motion = try Simulation.RecordedMotion(
                session: folder + "/session.csv", csv: .init(targetConvention: setup.settings.sensors.convention), clock: clock)
        } catch {
            throw .scenario("\(error)")
        }
        let dispatcher = NotificationDispatcher(sinks: sinks, retries: setup.settings.notifications.retries, logger: logger)
        var parts = Parts(
            motion: motion, beacons: Simulation.RecordedBeacons(scenario, clock: clock), dispatcher: dispatcher, service: nil, clock: clock,
            inbox: inbox)
        parts.attachControl(environment: ProcessInfo.processInfo.environment, logger: logger)
        return (LiveSession(scorer: setup.scorer, configuration: configuration, parts: parts, logger: logger), motion)
    }
}
