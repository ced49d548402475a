import Foundation
import HeadsUpBeacons
import HeadsUpPipeline

/// Pipeline events as JSON lines or as text, with times relative to an
/// origin (the session start in a replay, the start of `live`).
public struct PipelineEventFormatter {
    public var origin: Double
    /// Include a line for every scored window.
    public var includeScores: Bool

    public init(origin: Double, includeScores: Bool) {
        self.origin = origin
        self.includeScores = includeScores
    }

    public func json(_ event: PipelineEvent) -> String? {
        func t(_ time: Double) -> Double { ((time - origin) * 1000).rounded() / 1000 }
        func r(_ value: Double?) -> Any { value.map { ($0 * 10000).rounded() / 10000 } ?? NSNull() }
        let object: [String: Any]
        switch event {
        case .scored(let window):
            guard includeScores else { return nil }
            object = [
                "event": "score", "t": t(window.time), "score": r(window.score), "smoothed": r(window.smoothed), "distracted": window.distracted,
                "walking": window.walking,
            ]
        case .warnable:
            // Follows from the distraction and screen lines already written.
            return nil
        case .distraction(.becameDistracted(let time)):
            object = ["event": "distracted", "t": t(time)]
        case .distraction(.becameAttentive(let time)):
            object = ["event": "attentive", "t": t(time)]
        case .region(let regionEvent):
            var fields = BeaconJSON.event(regionEvent, since: origin)
            fields["t"] = fields.removeValue(forKey: "time")
            fields.removeValue(forKey: "monotonic")
            fields.removeValue(forKey: "last_seen")
            object = fields
        case .decision(let d):
            object = [
                "event": "decision", "t": t(d.time), "region": d.region, "trigger": d.trigger, "outcome": d.outcome.rawValue,
                "distracted": d.distracted, "smoothed_score": r(d.smoothedScore), "rssi": d.rssi, "proximity": d.proximity.rawValue,
            ]
        case .warning(let w):
            object = [
                "event": "warning", "t": t(w.time), "region": w.region, "beacon": w.beacon, "title": w.title, "body": w.body,
                "score": r(w.score), "smoothed_score": r(w.smoothedScore), "rssi": w.rssi, "proximity": w.proximity.rawValue,
                "trigger": w.trigger,
            ]
        case .windowsSkipped(let count, let time):
            object = ["event": "windows-skipped", "t": t(time), "count": count]
        case .windowUnscored(let time, let reason):
            object = ["event": "window-unscored", "t": t(time), "reason": reason.rawValue]
        case .screen(let change):
            object = ["event": "screen", "t": t(change.time), "state": change.to.rawValue, "from": change.from.rawValue]
        }
        return JSONLine.encode(object)
    }

    public func text(_ event: PipelineEvent) -> String? {
        func t(_ time: Double) -> String { String(format: "%8.2f s", time - origin) }
        switch event {
        case .scored(let window):
            guard includeScores else { return nil }
            return
                "\(t(window.time))  score \(String(format: "%.3f", window.score)) smoothed \(String(format: "%.3f", window.smoothed))"
                + (window.distracted ? " distracted" : "")
        case .warnable: return nil
        case .distraction(.becameDistracted(let time)): return "\(t(time))  DISTRACTED (phone in the hands)"
        case .distraction(.becameAttentive(let time)): return "\(t(time))  attentive"
        case .region(let regionEvent): return regionEvent.text(since: origin)
        case .decision(let d):
            return
                "\(t(d.time))  decision \(d.region) on \(d.trigger): \(d.outcome.rawValue) (smoothed score \(d.smoothedScore.map { String(format: "%.3f", $0) } ?? "-"), rssi \(d.rssi), \(d.proximity.rawValue))"
        case .warning(let w):
            return "\(t(w.time))  WARNING \(w.title) \(w.body)  [\(w.region) via \(w.beacon), rssi \(w.rssi)]"
        case .windowsSkipped(let count, let time):
            return "\(t(time))  \(count) windows skipped (scoring fell behind)"
        case .windowUnscored(let time, let reason):
            return "\(t(time))  window not scored: \(reason.text)"
        case .screen(let change):
            return "\(t(change.time))  screen \(change.to.rawValue) (was \(change.from.rawValue))"
        }
    }
}
