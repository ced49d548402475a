import Foundation

/// One JSON object per line, keys sorted: the machine-readable output of
/// every streaming command (beacons, sensors, live, replay).
public enum JSONLine {
    public static func encode(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
