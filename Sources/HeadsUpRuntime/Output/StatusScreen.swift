import Foundation
import HeadsUpBeacons
import HeadsUpData
import HeadsUpPipeline
import HeadsUpSensors
import HeadsUpSystem

/// The terminal view of `headsup live`, like the seed app's screen: score
/// and state, a sparkline of the last minute, sensor values, beacons and
/// regions, the last warning. Times of day come from the wall clock it is
/// given; everything else from the events.
public struct StatusScreen {
    private var scores: [(time: Double, score: Double)] = []
    public private(set) var lastWarning: String = "none yet"
    private let clock: any WallClock

    public init(clock: any WallClock) { self.clock = clock }

    public mutating func record(_ event: PipelineEvent) {
        switch event {
        case .scored(let window):
            scores.append((window.time, window.score))
            scores.removeAll { $0.time < window.time - 60 }
        case .warning(let warning):
            lastWarning = "\(localTime(clock.secondsSince1970(), format: "%H:%M:%S")) \(warning.title) \(warning.body) at \(warning.region)"
        default:
            break
        }
    }

    static let bars = Array("▁▂▃▄▅▆▇█")

    /// The last minute of scores, one character per window.
    public var sparkline: String {
        String(scores.suffix(60).map { Self.bars[min(7, max(0, Int($0.score * 8)))] })
    }

    /// `snoozedUntil`: Unix seconds when the user's snooze ends, if one is on.
    public func render(
        pipeline: HeadsUpPipeline, sensors: [SensorKind: SIMD3<Double>], beacons: [BeaconStatus], regions: [BeaconRegion], snoozedUntil: Double? = nil
    ) -> String {
        let tracker = pipeline.tracker
        let state = tracker.isDistracted ? "DISTRACTED (phone in the hands)" : "attentive"
        func vector(_ kind: SensorKind) -> String {
            guard let v = sensors[kind] else { return "-" }
            return String(format: "%8.3f %8.3f %8.3f %@", v.x, v.y, v.z, kind.modelUnit)
        }
        var lines = [
            "HeadsUp live — Ctrl-C to stop",
            "",
            "score     \(tracker.latestScore.map { String(format: "%.3f", $0) } ?? "-")   smoothed \(tracker.smoothedScore.map { String(format: "%.3f", $0) } ?? "-")   \(state)",
            "last min  \(sparkline)",
            "motion    "
                + (pipeline.walking.isWalking ? "walking" + (pipeline.walking.cadence.map { String(format: " (%.1f steps/s)", $0) } ?? "") : "still")
                + (pipeline.configuration.warning.onlyWhileWalking ? "; warnings only while walking" : ""),
            "screen    \(pipeline.screen.rawValue)"
                + (pipeline.configuration.warning.onlyWhileScreenOn == .off ? "" : "; warnings only while the phone is in use"),
            "",
            "acc  \(vector(.accelerometer))",
            "gyro \(vector(.gyroscope))",
            "mag  \(vector(.magnetometer))",
            "",
        ]
        for region in regions {
            lines.append("region \(region.name): \(pipeline.monitor.isInside(region) ? "INSIDE" : "outside")")
        }
        for beacon in beacons.prefix(6) {
            lines.append(
                String(format: "  %@  rssi %d (%.1f)  %@", beacon.identity.description, beacon.rssi, beacon.smoothedRSSI, beacon.proximity.rawValue))
        }
        let c = pipeline.counters
        if let snoozedUntil {
            lines += ["", "warnings SNOOZED until \(localTime(snoozedUntil, format: "%H:%M")) (headsup snooze off)"]
        }
        lines += ["", "last warning: \(lastWarning)", "windows \(c.windowsScored) scored, \(c.windowsSkipped) skipped; warnings \(c.warnings)"]
        return "\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\n") + "\n"
    }
}
