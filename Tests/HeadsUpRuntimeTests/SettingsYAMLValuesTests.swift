import Foundation
import Testing
import Yams

@testable import HeadsUpRuntime

/// Settings files are read without Yams' default resolver (its regular
/// expressions page ICU's regex engine into the daemon): the plain scalars
/// must still resolve to what that resolver gives.
@Suite("Settings YAML values")
struct SettingsYAMLValuesTests {
    static let scalars = [
        "", "~", "null", "Null", "NULL", "nULL", "none",
        "yes", "Yes", "YES", "yEs", "no", "No", "true", "True", "TRUE", "tRue", "false", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "y", "n",
        "0", "00", "07", "08", "0o17", "0o18", "0o", "0b101", "0b", "0b2", "0x1F", "0xg", "0x", "-0x1f", "+12", "-12", "12", "1_000", "1__0",
        "_1", "1:30", "1:3", "1:60", "1:61", "190:20:30", "1:", ":30", "-1:30", "0:30", "123abc", "1-2",
        "1.5", "-1.5", "+1.5", "1.", "1.e5", "1e5", "1E+5", "1e-5", "1e", "1e+", ".5", ".5e+3", ".5e3", "-.5", "._", "1_0.0_1", "1.2.3",
        "1:30.5", "1:30.", "-1:30.5", ".inf", "-.inf", "+.inf", ".Inf", ".INF", ".iNf", ".nan", ".NaN", "-.nan", "nan", "inf",
        "2026-11-28", "2026-1-28", "2026-11-28T09:30:00", "2026-11-28t9:30:00.5", "2026-11-28 09:30:00Z", "2026-11-28  09:30:00 +1",
        "2026-11-28T09:30:00-05:00", "2026-11-28T09:30:00+05:3", "2026-11-28T09:30", "20261-1-28", "2026-11-288",
        "=", "<<", "-", "- x", "crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D:1", "near", "auto", "poll", "-70", "3.5m", "ünïcode", "12 ",
    ]

    @Test func plainScalarsResolveAsYamsDefaultResolverDoes() throws {
        var compared = 0
        for text in Self.scalars {
            // Texts that are no plain scalar after `key: ` (`- x`, `: `) say nothing here.
            guard let node = (try? Yams.compose(yaml: "key: \(text)\n"))??.mapping?["key"], let scalar = node.scalar, scalar.style == .plain,
                let basic = (try? Yams.compose(yaml: "key: \(text)\n", .basic))??.mapping?["key"]?.scalar
            else { continue }
            let expected = Yams.Tag.Name(rawValue: node.tag.description)
            let resolved = SettingsYAMLValues.tag(ofPlain: basic.string)
            // Merge and value are mapping-key forms; as values Yams constructs them as text, as str.
            let asText: Set<Yams.Tag.Name> = [.merge, .value]
            #expect(
                resolved == (asText.contains(expected) ? .str : expected), "'\(text)': Yams says \(expected.rawValue), we say \(resolved.rawValue)")
            compared += 1
        }
        #expect(compared > Self.scalars.count - 10, "\(compared) of \(Self.scalars.count) compared")
    }

    @Test func documentsBecomeTheSameSettingValues() throws {
        let document = """
            beacons:
              regions: ["crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D:1", 'other=x:2']
              enter_rssi: -70
              dwell: 2.5
            warning: {only_while_walking: yes, cooldown: 0x1e, proximity: near, quoted: "true", nothing: ~}
            list: [1, two, 3.0, null, off]
            when: 2026-11-28
            explicit: !!str 12
            """
        let root = try #require(try Yams.compose(yaml: document, .basic))
        let ours = try #require(SettingsYAMLValues.value(of: root) as? [String: Any])
        let yams = try #require(try Yams.compose(yaml: document)?.any as? [AnyHashable: Any])
        func flatten(_ value: Any, _ prefix: String, into out: inout [String: String]) {
            if let mapping = value as? [String: Any] {
                for (k, v) in mapping { flatten(v, prefix + "." + k, into: &out) }
            } else if let mapping = value as? [AnyHashable: Any] {
                for (k, v) in mapping { flatten(v, prefix + "." + (k.base as! String), into: &out) }
            } else if let items = value as? [Any] {
                for (i, v) in items.enumerated() { flatten(v, prefix + "[\(i)]", into: &out) }
            } else {
                out[prefix] = "\(type(of: value)) \(value)"
            }
        }
        var a: [String: String] = [:]
        var b: [String: String] = [:]
        flatten(ours, "", into: &a)
        flatten(yams, "", into: &b)
        #expect(a == b)
        #expect(a[".warning.cooldown"] == "Int 30")
        #expect(a[".warning.quoted"] == "String true")
        #expect(a[".list[4]"] == "Bool false")
    }
}
