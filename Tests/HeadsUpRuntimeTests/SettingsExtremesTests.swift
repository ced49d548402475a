import Foundation
import HeadsUpRuntime
import Testing

/// Every key fed the values that trapped or could trap: infinities, NaN,
/// 1e300, −1, integers beyond Int, YAML's base-60 form, empty text, each
/// from a file and (as numbers) from the command line. Each is either taken
/// (and then shown, resolved and read back without a trap) or refused with
/// an error naming the key; a trap would end this test process.
@Suite("Settings: extreme values")
struct SettingsExtremesTests {
    /// As written in YAML after `key: `.
    static let yamlValues = [
        ".inf", "-.inf", "+.inf", ".nan", "inf", "-inf", "nan", "1e300", "-1e300", "1e309", "-1", "-1.5", "0", "99999999999999999999999",
        "-99999999999999999999999", "9223372036854775807", "9223372036854775808", "0x7fffffffffffffffffff", "0b" + String(repeating: "1", count: 80),
        "0o777777777777777777777777", "1:0:0:0:0:0:0:0:0:0:0", "-1:0:0:0:0:0:0:0:0:0:0", "1:30", "190:20:30.15", "!!int 1:0:0:0:0:0:0:0:0:0:0",
        "!!float 1:0:0:0:0:0:0:0:0:0:0.5", "''", "\"\"", "", "~", "[]", "[1e300]", "\"trimmed:1e300:0.1\"", "\"trimmed:inf:0.1\"",
        "\"trimmed:nan:0.1\"",
        "\"arma:1e300\"", "\"arma:nan\"", "\"trimmed:20:1e300\"", "\"1e300,1,1\"", "\"inf,1,1\"", "\"nan,nan,nan\"", "\"1,1,1e300\"",
        "\"x=B9407F30-F5F8-466E-AFF9-25556B57FE6D:99999999999999999999\"", "\"B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:1e300\"",
        "\"ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:-1:-1\"",
    ]

    /// Keys a combination rule names (`ResolvedSettings.checkCombinations`):
    /// exit_rssi alone is refused as "needs enter_rssi", from the defaults.
    static let combined: Set<String> = ["beacons.enter_rssi", "beacons.exit_rssi", "beacons.exit_distance", "distraction.exit_threshold"]

    /// The key it names is the one given, or a combination rule's.
    func named(_ error: SettingsError, _ key: SettingKey) -> Bool {
        error.key == key.name || (Self.combined.contains(key.name) && Self.combined.contains(error.key ?? ""))
    }

    static let numbers: [Double] = [.infinity, -.infinity, .nan, 1e300, -1e300, -1, 9.3e18, -9.3e18, Double(Int.max), 0.5]

    /// The key named in the error, or the one error-free outcome: every value read back and shown.
    func exercise(_ layers: LayeredSettings) throws(SettingsError) {
        let resolved = try layers.resolved()
        for row in resolved.rows { _ = row.value.count }
        for key in SettingsSchema.keys { _ = key.value(in: resolved.settings).description }
    }

    @Test func everyKeyTakesOrRefusesEveryExtremeFromAFileByName() {
        var refused = 0
        for key in SettingsSchema.keys {
            for value in Self.yamlValues {
                let nested = key.name.split(separator: ".")
                // Dotted and nested: both forms reach the same key.
                let documents = [
                    "\(key.name): \(value)\n",
                    nested.enumerated().map { String(repeating: "  ", count: $0.offset) + $0.element + ":" }.joined(separator: "\n") + " \(value)\n",
                ]
                for document in documents {
                    var layers = LayeredSettings()
                    do {
                        try layers.addYAML(document, source: "extremes.yaml")
                        try exercise(layers)
                    } catch {
                        refused += 1
                        #expect(named(error, key), "\(key.name): \(value): \(error)")
                        #expect(error.source.hasPrefix("extremes.yaml") || error.key != key.name, "\(error)")
                        if value.contains(":0:0") || value == "1:30" || value.hasPrefix("190:") {
                            #expect(error.source == "extremes.yaml:\(document.split(separator: "\n").count)", "\(error)")
                        }
                    }
                }
            }
        }
        #expect(refused > SettingsSchema.keys.count * 10)
    }

    @Test func everyKeyTakesOrRefusesEveryExtremeNumberFromAFlagByName() {
        for key in SettingsSchema.keys {
            for number in Self.numbers {
                var layers = LayeredSettings()
                do {
                    try layers.set(key.name, .number(number))
                    try exercise(layers)
                } catch {
                    #expect(named(error, key), "\(key.name): \(number): \(error)")
                }
                #expect(!SettingValue.number(number).description.isEmpty)
            }
        }
    }

    @Test func aBase60NumberIsRefusedWithItsFileLineAndKey() {
        var layers = LayeredSettings()
        #expect {
            try layers.addYAML(
                "warning:\n  cooldown: 30\nbeacons:\n  regions: []\n  dwell: 1:0:0:0:0:0:0:0:0:0:0\n", source: "/etc/headsup/config.yaml")
        } throws: { error in
            let error = error as! SettingsError
            return error.source == "/etc/headsup/config.yaml:5" && error.key == "beacons.dwell"
                && error.message.contains("base-60") && error.message.contains("1:30 is 90")
        }
        // Quoted, it is text, and the key says what it takes.
        #expect {
            try layers.addYAML("beacons.dwell: '1:30'\n", source: "q.yaml")
        } throws: { error in
            (error as! SettingsError).key == "beacons.dwell"
        }
    }
}
