import Foundation
import HeadsUpData
import HeadsUpPipeline
import HeadsUpRuntime
import HeadsUpSystem

/// What `headsup live` shows: on a terminal the status screen, redrawn
/// twice a second; otherwise one JSON line per event.
final class LiveView {
    private let session: LiveSession
    private let interactive: Bool
    private let formatter: PipelineEventFormatter
    private let clock: any MonotonicClock
    private var screen: StatusScreen
    private var lastDraw: Double?
    static let redrawInterval = 0.5

    init(
        session: LiveSession, interactive: Bool, includeScores: Bool, clock: any MonotonicClock = SystemMonotonicClock(),
        wallClock: any WallClock = SystemWallClock()
    ) {
        self.session = session
        self.interactive = interactive
        self.clock = clock
        formatter = PipelineEventFormatter(origin: session.now, includeScores: includeScores)
        screen = StatusScreen(clock: wallClock)
    }

    func show(_ events: [PipelineEvent]) {
        var output = ""
        for event in events {
            screen.record(event)
            if !interactive, let line = formatter.json(event) { output += line + "\n" }
        }
        let now = clock.now()
        if interactive, lastDraw.map({ now - $0 >= Self.redrawInterval }) ?? true {
            lastDraw = now
            output += screen.render(
                pipeline: session.pipeline, sensors: session.parts.motion.latest, beacons: session.pipeline.monitor.beacons,
                regions: session.pipeline.configuration.regions, snoozedUntil: session.status.snoozedUntil)
        }
        if !output.isEmpty { FileHandle.standardOutput.write(Data(output.utf8)) }
    }
}
