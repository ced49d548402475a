import Foundation

/// A JSON object with its keys in order, on one line: what the JSON lines
/// output, the JSON sink and the MQTT messages write. Keys are sorted by
/// Swift's own comparison; each value is written by JSONSerialization. Its
/// `.sortedKeys` option would compare the keys with a locale, which loads
/// ICU's collation tables (3 MB resident) into the daemon for nothing.
public enum SortedJSON {
    public static func encode(_ object: [String: Any]) -> String {
        var text = "{"
        for (index, key) in object.keys.sorted().enumerated() {
            if index > 0 { text += "," }
            text += fragment(key) + ":" + value(object[key]!)
        }
        return text + "}"
    }

    private static func value(_ value: Any) -> String {
        switch value {
        case let object as [String: Any]: return encode(object)
        case let array as [Any]: return "[" + array.map(Self.value).joined(separator: ",") + "]"
        default: return fragment(value)
        }
    }

    private static func fragment(_ value: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed]) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }
}
