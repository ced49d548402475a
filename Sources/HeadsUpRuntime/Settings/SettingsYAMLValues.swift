import Foundation
import Yams

/// A settings file's YAML as plain values (`[String: Any]`, `[Any]`,
/// `String`, `Int`, `Double`, `Bool`, `NSNull`), the types Yams' default
/// resolver gives, without that resolver.
///
/// Yams' default resolver tells `true` and `12` from strings with
/// `NSRegularExpression`s, compiled once by ICU's regex engine, which
/// pages in about 1.5 MB of ICU's code for the daemon's whole life to read
/// a few lines of settings. The file is parsed with Yams' basic resolver
/// (every scalar a string) and each plain scalar is resolved here with the
/// same YAML 1.1 forms as Yams' rules (bool, int, float, null, timestamp;
/// a test compares the two), then built by Yams' own constructors. Merge
/// keys (`<<`) are not applied: settings have no use for them.
enum SettingsYAMLValues {
    /// The document as Yams' `Node.any` would give it with the default resolver.
    static func value(of node: Node) -> Any {
        switch node {
        case .scalar(let scalar):
            return value(of: scalar)
        case .mapping(let mapping):
            guard [Tag.Name.implicit.rawValue, Tag.Name.map.rawValue].contains(mapping.tag.description) else { return node.any }
            var result: [String: Any] = [:]
            for (key, value) in mapping { result[key.string ?? ""] = Self.value(of: value) }
            return result
        case .sequence(let sequence):
            guard [Tag.Name.implicit.rawValue, Tag.Name.seq.rawValue].contains(sequence.tag.description) else { return node.any }
            return sequence.map { value(of: $0) }
        }
    }

    private static func value(of scalar: Node.Scalar) -> Any {
        // Quoted, block or explicitly tagged scalars are not resolved by value (Yams' rule too).
        guard scalar.tag.description == Tag.Name.implicit.rawValue, scalar.style == .plain || scalar.style == .any else {
            return Node.scalar(scalar).any
        }
        let constructed: Any? =
            switch tag(ofPlain: scalar.string) {
            case .bool: Bool.construct(from: scalar)
            case .int: Int.construct(from: scalar)
            case .float: Double.construct(from: scalar)
            case .null: NSNull.construct(from: scalar)
            case .timestamp: Date.construct(from: scalar)
            default: nil
            }
        return constructed ?? scalar.string
    }

    /// The first number written in YAML 1.1's base-60 form (`1:30` is 90,
    /// `1:0:0:0:0:0:0:0:0:0:0` overflows Yams' integer constructor, which
    /// traps), as its line, dotted key and text; nil when there is none.
    /// Such a scalar is refused before anything constructs it: no setting
    /// takes a base-60 number, and a time written `1:30` means something
    /// else to most readers. Plain scalars of the int or float form and
    /// scalars tagged `!!int` or `!!float` count.
    static func sexagesimalNumber(in node: Node, key: String = "") -> (line: Int, key: String, text: String)? {
        switch node {
        case .scalar(let scalar):
            guard scalar.string.contains(":") else { return nil }
            let tag = scalar.tag.description
            let numeric: Bool
            if tag == Tag.Name.implicit.rawValue {
                numeric = (scalar.style == .plain || scalar.style == .any) && [.int, .float].contains(Self.tag(ofPlain: scalar.string))
            } else {
                numeric = [Tag.Name.int.rawValue, Tag.Name.float.rawValue].contains(tag)
            }
            return numeric ? (scalar.mark?.line ?? 0, key, scalar.string) : nil
        case .mapping(let mapping):
            for (name, value) in mapping {
                let dotted = key.isEmpty ? (name.string ?? "") : key + "." + (name.string ?? "")
                if let found = sexagesimalNumber(in: name, key: dotted) ?? sexagesimalNumber(in: value, key: dotted) { return found }
            }
            return nil
        case .sequence(let sequence):
            for item in sequence {
                if let found = sexagesimalNumber(in: item, key: key) { return found }
            }
            return nil
        }
    }

    /// The tag Yams' default rules give a plain scalar: the first of bool,
    /// int, float, null and timestamp whose form it has, else str.
    static func tag(ofPlain text: String) -> Tag.Name {
        if ["yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"]
            .contains(text)
        {
            return .bool
        }
        let bytes = Array(text.utf8)
        if isInt(bytes) { return .int }
        if isFloat(bytes) { return .float }
        if ["", "~", "null", "Null", "NULL"].contains(text) { return .null }
        if isTimestamp(bytes) { return .timestamp }
        return .str
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
    private static let underscore = UInt8(ascii: "_")

    /// Index after an optional sign.
    private static func afterSign(_ s: [UInt8]) -> Int { s.first == UInt8(ascii: "-") || s.first == UInt8(ascii: "+") ? 1 : 0 }

    /// Index after `(?::[0-5]?[0-9])+` from `i`, or nil when there is no such group.
    private static func afterSexagesimal(_ s: [UInt8], _ i: Int) -> Int? {
        var i = i
        var groups = 0
        while i < s.count, s[i] == UInt8(ascii: ":") {
            var j = i + 1
            while j < s.count, isDigit(s[j]) { j += 1 }
            let digits = j - i - 1
            guard digits == 1 || (digits == 2 && s[i + 1] <= UInt8(ascii: "5")) else { return nil }
            i = j
            groups += 1
        }
        return groups > 0 ? i : nil
    }

    /// Index after a run of bytes satisfying `accept` from `i`.
    private static func run(_ s: [UInt8], _ i: Int, _ accept: (UInt8) -> Bool) -> Int {
        var i = i
        while i < s.count, accept(s[i]) { i += 1 }
        return i
    }

    static func isInt(_ s: [UInt8]) -> Bool {
        let start = afterSign(s)
        guard start < s.count else { return false }
        let rest = Array(s[start...])
        func all(from i: Int, _ accept: (UInt8) -> Bool) -> Bool { i < rest.count && run(rest, i, accept) == rest.count }
        if rest.starts(with: Array("0b".utf8)), all(from: 2, { $0 == 0x30 || $0 == 0x31 || $0 == underscore }) { return true }
        if rest.starts(with: Array("0x".utf8)),
            all(from: 2, { isDigit($0) || (0x61...0x66).contains($0) || (0x41...0x46).contains($0) || $0 == underscore })
        {
            return true
        }
        let octal: (UInt8) -> Bool = { ($0 >= 0x30 && $0 <= 0x37) || $0 == underscore }
        if rest[0] == 0x30 {
            if rest.count == 1 { return true }
            if rest[1] == UInt8(ascii: "o") { return all(from: 2, octal) }
            return all(from: 1, octal)
        }
        guard rest[0] >= 0x31 && rest[0] <= 0x39 else { return false }
        let end = run(rest, 1) { isDigit($0) || $0 == underscore }
        if end == rest.count { return true }
        return afterSexagesimal(rest, end) == rest.count
    }

    static func isFloat(_ s: [UInt8]) -> Bool {
        let text = String(decoding: s, as: UTF8.self)
        if [".nan", ".NaN", ".NAN"].contains(text) { return true }
        let start = afterSign(s)
        if [".inf", ".Inf", ".INF"].contains(String(decoding: s[start...], as: UTF8.self)) { return true }
        let digitOrUnderscore: (UInt8) -> Bool = { isDigit($0) || $0 == underscore }
        // \.[0-9_]+(?:[eE][-+][0-9]+)? (no sign before the dot)
        if s.first == UInt8(ascii: ".") {
            let end = run(s, 1, digitOrUnderscore)
            guard end > 1 else { return false }
            return end == s.count || exponent(s, end, signRequired: true) == s.count
        }
        guard start < s.count, isDigit(s[start]) else { return false }
        let end = run(s, start + 1, digitOrUnderscore)
        // [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
        if let after = afterSexagesimal(s, end) {
            return after < s.count && s[after] == UInt8(ascii: ".") && run(s, after + 1, digitOrUnderscore) == s.count
        }
        // [-+]?[0-9][0-9_]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?
        var i = end
        if i < s.count, s[i] == UInt8(ascii: ".") { i = run(s, i + 1, digitOrUnderscore) }
        return i == s.count || exponent(s, i, signRequired: false) == s.count
    }

    /// Index after `[eE][-+]?[0-9]+` at `i` (the sign required or not), or nil.
    private static func exponent(_ s: [UInt8], _ i: Int, signRequired: Bool) -> Int? {
        guard i < s.count, s[i] == UInt8(ascii: "e") || s[i] == UInt8(ascii: "E") else { return nil }
        var j = i + 1
        if j < s.count, s[j] == UInt8(ascii: "-") || s[j] == UInt8(ascii: "+") {
            j += 1
        } else if signRequired {
            return nil
        }
        let end = run(s, j, isDigit)
        return end > j ? end : nil
    }

    static func isTimestamp(_ s: [UInt8]) -> Bool {
        func digits(_ i: Int, _ least: Int, _ most: Int) -> Int? {
            let end = run(s, i, isDigit)
            let count = min(end - i, most)
            return count >= least ? i + count : nil
        }
        func byte(_ i: Int, _ c: Character) -> Bool { i < s.count && s[i] == c.asciiValue! }
        // [0-9]{4}-[0-9]{2}-[0-9]{2}
        if s.count == 10, digits(0, 4, 4) == 4, byte(4, "-"), digits(5, 2, 2) == 7, byte(7, "-"), digits(8, 2, 2) == 10 { return true }
        // [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?
        guard digits(0, 4, 4) == 4, byte(4, "-"), let month = digits(5, 1, 2), byte(month, "-"), let day = digits(month + 1, 1, 2) else {
            return false
        }
        var i = day
        if byte(i, "T") || byte(i, "t") {
            i += 1
        } else {
            let end = run(s, i) { $0 == 0x20 || $0 == 0x09 }
            guard end > i else { return false }
            i = end
        }
        guard let hour = digits(i, 1, 2), byte(hour, ":"), let minute = digits(hour + 1, 2, 2), byte(minute, ":"),
            let second = digits(minute + 1, 2, 2)
        else { return false }
        i = second
        if byte(i, ".") { i = run(s, i + 1, isDigit) }
        if i == s.count { return true }
        i = run(s, i) { $0 == 0x20 || $0 == 0x09 }
        if byte(i, "Z") { return i + 1 == s.count }
        guard byte(i, "-") || byte(i, "+"), let zone = digits(i + 1, 1, 2) else { return false }
        if zone == s.count { return true }
        guard byte(zone, ":"), let zoneMinutes = digits(zone + 1, 2, 2) else { return false }
        return zoneMinutes == s.count
    }
}
