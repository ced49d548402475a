import HeadsUpNotify

/// One JSON object per line, keys sorted: the machine-readable output of
/// every streaming command (beacons, sensors, live, replay).
public enum JSONLine {
    public static func encode(_ object: [String: Any]) -> String { SortedJSON.encode(object) }
}
