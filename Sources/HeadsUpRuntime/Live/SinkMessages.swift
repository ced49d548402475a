import Foundation
import HeadsUpNotify
import HeadsUpPipeline

extension Warning {
    /// The warning as the sinks deliver it.
    public var notification: NotificationMessage {
        var fields: [(String, String)] = [
            ("region", region), ("beacon", beacon), ("rssi", String(rssi)), ("proximity", proximity.rawValue), ("trigger", trigger),
        ]
        if let score { fields.append(("score", String(format: "%.3f", score))) }
        if let smoothedScore { fields.append(("smoothed_score", String(format: "%.3f", smoothedScore))) }
        return NotificationMessage(title: title, body: body, time: time, fields: fields)
    }
}

extension PipelineEvent {
    /// What the event changes in the state that sinks mirror (MQTT), if anything.
    public var stateUpdate: StateUpdate? {
        switch self {
        case .scored(let window):
            .scored(smoothedScore: window.smoothed, distracted: window.distracted, walking: window.walking, time: window.time)
        case .distraction(.becameDistracted(let time)): .distracted(true, time: time)
        case .distraction(.becameAttentive(let time)): .distracted(false, time: time)
        case .region(.entered(let region, _, let time)): .region(name: region.name, inside: true, time: time)
        case .region(.exited(let region, _, let time, _)): .region(name: region.name, inside: false, time: time)
        case .screen(let change): .screen(change.to.rawValue, time: change.time)
        case .region(.proximityChanged), .decision, .warning, .windowsSkipped, .windowUnscored, .warnable: nil
        }
    }
}

extension NotificationDispatcher {
    /// Hands the sinks what the event means for them: a warning to deliver,
    /// a state to mirror, or nothing.
    public func forward(_ event: PipelineEvent) {
        if case .warning(let warning) = event { enqueue(warning.notification) }
        if let state = event.stateUpdate { update(state) }
    }
}
