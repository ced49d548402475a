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
