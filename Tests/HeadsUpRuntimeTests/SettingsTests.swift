import Foundation
import HeadsUpBeacons
import HeadsUpData
import HeadsUpModel
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

@testable import HeadsUpRuntime

@Suite("Settings: one home for each key's default, range and precedence")
struct SettingsTests {
    @Test func theDefaultsAreTheLibraryTypesDefaults() throws {
        let settings = try LayeredSettings().resolved().settings
        #expect(settings.windowing == WindowingConfiguration())
        #expect(settings.warning == WarningConfiguration())
        #expect(settings.distraction.configuration == DistractionConfiguration())
        let monitor = try settings.beacons.monitorConfiguration()
        #expect(monitor == RegionMonitorConfiguration())
    }

    @Test func everyKeyReadsBackWhatItWasGiven() throws {
        for key in SettingsSchema.keys {
            var settings = Settings()
            let value = key.value(in: settings)
            try key.apply(value, to: &settings)
            #expect(key.value(in: settings) == value, "\(key.name)")
        }
    }

    /// Values no key may take: each must be refused with the key, the value and the range.
    @Test func everyKeyRefusesValuesOutsideItsRange() throws {
        let wrongKind: [SettingValue] = [.boolean(true), .list(["a", "b"])]
        for key in SettingsSchema.keys {
            var refused: [SettingValue] = wrongKind.filter { value in
                // A list key takes a list (a single text counts as a list of one), a boolean key a boolean.
                !(key.accepts.contains("list") && value == .list(["a", "b"])) && !(key.accepts.hasSuffix("true or false") && value == .boolean(true))
            }
            if key.accepts.hasSuffix("true or false") { refused.append(.string("maybe")) }
            if key.accepts.hasPrefix("a number") || key.accepts.hasPrefix("a whole number") {
                refused += [.number(-1e9), .number(1e9), .number(.nan), .string("soon")]
            }
            if key.accepts.hasPrefix("one of") { refused.append(.string("sideways")) }
            for value in refused {
                var layers = LayeredSettings()
                #expect(throws: SettingsError.self, "\(key.name) took \(value)") { try layers.set(key.name, value, source: "test.yaml") }
                do { try layers.set(key.name, value, source: "test.yaml") } catch {
                    #expect(error.description.hasPrefix("test.yaml: \(key.name): "), "\(error)")
                }
            }
        }
    }

    /// auto, true or false: YAML gives booleans, a flag gives text; both mean the same.
    @Test func theScreenGateTakesAutoOrABoolean() throws {
        #expect(Settings().warning.onlyWhileScreenOn == .auto)
        for (yaml, gate) in [("true", ScreenGate.on), ("false", .off), ("auto", .auto), ("'true'", .on)] {
            var layers = LayeredSettings()
            try layers.addYAML("warning:\n  only_while_screen_on: \(yaml)\n", source: "user.yaml")
            #expect(try layers.resolved().settings.warning.onlyWhileScreenOn == gate, "\(yaml)")
        }
        var layers = LayeredSettings()
        try layers.set("warning.only_while_screen_on", .string("false"))
        #expect(try layers.resolved().settings.warning.onlyWhileScreenOn == .off)
        #expect(throws: SettingsError.self) { try layers.set("warning.only_while_screen_on", .number(1)) }
    }

    @Test func aNegativeCooldownIsRefusedWithItsRange() {
        var layers = LayeredSettings()
        #expect(throws: SettingsError.self) { try layers.addYAML("warning:\n  cooldown: -5\n", source: "/etc/headsup/config.yaml") }
        do { try layers.addYAML("warning:\n  cooldown: -5\n", source: "/etc/headsup/config.yaml") } catch {
            #expect(error.description == "/etc/headsup/config.yaml: warning.cooldown: -5: out of range: expected a number from 0 to 86400")
        }
    }

    @Test func layersApplyInOrderAndRememberTheirSource() throws {
        var layers = LayeredSettings()
        try layers.addYAML("warning:\n  cooldown: 60\n  check_interval: 4\n", source: "system.yaml")
        try layers.addYAML("warning.cooldown: 45\ndistraction:\n  enter_threshold: 0.6\n", source: "user.yaml")
        try layers.set("windowing.hop", .number(10))
        let card = ModelCardStub.card(threshold: 0.3)
        let resolved = try layers.resolved(card: card)
        #expect(resolved.settings.warning.cooldown == 45)
        #expect(resolved.source(of: "warning.cooldown") == "user.yaml")
        #expect(resolved.settings.warning.checkInterval == 4)
        #expect(resolved.settings.windowing.hop == 10)
        #expect(resolved.source(of: "windowing.hop") == LayeredSettings.commandLine)
        // The file is above the card: the user's threshold wins.
        #expect(resolved.settings.distraction.enterThreshold == 0.6)
        #expect(resolved.source(of: "sensors.convention") == "model card \(card.path)")
        #expect(resolved.source(of: "warning.title") == ResolvedSettings.defaultSource)
        // The card is above the defaults.
        #expect(try LayeredSettings().resolved(card: card).settings.distraction.enterThreshold == 0.3)
    }

    @Test func theCardsTunedDecisionValuesSitBelowTheFiles() throws {
        let card = ModelCardStub.card(threshold: 0.4, decision: #", "hop": 10, "time_constant": 0.5, "minimum_duration": 0.3"#)
        var layers = LayeredSettings()
        try layers.addYAML("distraction:\n  minimum_duration: 1\n", source: "mine.yaml")
        let resolved = try layers.resolved(card: card)
        #expect(resolved.settings.windowing.hop == 10)
        #expect(resolved.settings.distraction.timeConstant == 0.5)
        #expect(resolved.source(of: "windowing.hop") == "model card \(card.path)")
        #expect(resolved.settings.distraction.minimumDuration == 1)
        #expect(resolved.source(of: "distraction.minimum_duration") == "mine.yaml")
        // A card value out of range is refused like any other, naming the card.
        let bad = ModelCardStub.card(threshold: 0.4, decision: #", "hop": 0"#)
        #expect(throws: SettingsError.self) { try LayeredSettings().resolved(card: bad) }
    }

    @Test func aSensitivityPresetShiftsTheCardsValuesAndFilesStillWin() throws {
        let card = ModelCardStub.card(threshold: 0.3, decision: #", "time_constant": 0.5, "minimum_duration": 0.4"#)
        var high = LayeredSettings()
        try high.set("warning.sensitivity", .string("high"))
        let resolved = try high.resolved(card: card)
        #expect(abs(resolved.settings.distraction.enterThreshold - 0.2) < 1e-12)
        #expect(resolved.settings.distraction.timeConstant == 0.25 && resolved.settings.distraction.minimumDuration == 0.2)
        #expect(resolved.settings.warning.proximity == .far)
        #expect(resolved.source(of: "distraction.enter_threshold") == "sensitivity high")
        var low = LayeredSettings()
        try low.addYAML("warning:\n  sensitivity: low\ndistraction:\n  enter_threshold: 0.5\n", source: "mine.yaml")
        let lowResolved = try low.resolved(card: card)
        #expect(lowResolved.settings.distraction.enterThreshold == 0.5, "the file's own value wins over the preset")
        #expect(lowResolved.settings.distraction.minimumDuration == 0.9 && lowResolved.settings.warning.proximity == .immediate)
        #expect(try LayeredSettings().resolved(card: card).settings.distraction.enterThreshold == 0.3, "normal is the card's")
    }

    @Test func warningMessagesAreUsedInTurn() throws {
        var layers = LayeredSettings()
        try layers.addYAML("warning:\n  messages: [Look up!, Cars ahead!, Watch the road!]\n", source: "mine.yaml")
        let warning = try layers.resolved().settings.warning
        #expect((0..<4).map(warning.body(forWarning:)) == ["Look up!", "Cars ahead!", "Watch the road!", "Look up!"])
        #expect(WarningConfiguration().body(forWarning: 3) == "You are crossing the road!")
    }

    @Test func combinationsAreCheckedAndNameTheSourceOfTheOffendingKey() throws {
        var layers = LayeredSettings()
        try layers.addYAML("distraction:\n  enter_threshold: 0.4\n  exit_threshold: 0.5\n", source: "mine.yaml")
        #expect(throws: SettingsError.self) { try layers.resolved() }
        var rssi = LayeredSettings()
        try rssi.set("beacons.enter_rssi", .number(-70), source: "flags")
        do {
            _ = try rssi.resolved()
            Issue.record("one RSSI threshold alone was accepted")
        } catch {
            #expect(error.description.hasPrefix("flags: beacons.enter_rssi:"), "\(error)")
        }
    }

    @Test func unknownKeysAreWarnedAboutNotFatal() throws {
        var layers = LayeredSettings()
        try layers.addYAML("warning:\n  colour: red\n", source: "mine.yaml")
        #expect(layers.warnings == ["mine.yaml: unknown key 'warning.colour' ignored"])
    }

    @Test func secretsAreRedactedForDisplay() throws {
        var layers = LayeredSettings()
        try layers.set("notifications.webhook", .string("https://user:pw@hooks.example.org:8443/T0KEN?key=abc"))
        let row = try layers.resolved().rows.first { $0.key == "notifications.webhook" }
        #expect(row?.value == "https://hooks.example.org:8443/…(redacted)")
        #expect(Redaction.redacted("not a url with a token") == Redaction.marker)
    }

    /// dist/config.example.yaml lists every key: uncommented (as the
    /// clean-root install test does it), every key comes from the file and
    /// every example value is accepted.
    @Test func theExampleConfigurationListsEveryKey() throws {
        let example = try String(contentsOfFile: TestEnvironment.path("dist/config.example.yaml"), encoding: .utf8)
        let uncommented = example.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            guard line.hasPrefix("#"), line.dropFirst().first.map({ $0.isLowercase }) == true || line.hasPrefix("#  "),
                let colon = line.firstIndex(of: ":"),
                line[line.index(after: line.startIndex)..<colon].allSatisfy({ $0 == " " || $0 == "_" || $0.isLowercase })
            else { return line }
            return line.dropFirst()
        }.joined(separator: "\n")
        var layers = LayeredSettings()
        try layers.addYAML(uncommented, source: "example")
        #expect(layers.warnings.isEmpty, "keys HeadsUp does not know: \(layers.warnings)")
        let resolved = try layers.resolved()
        let missing = SettingsSchema.keys.map(\.name).filter { resolved.source(of: $0) != "example" }
        #expect(missing.isEmpty, "not in dist/config.example.yaml: \(missing)")
    }
}

/// A model card written to a temporary file and read back as HeadsUp reads cards.
enum ModelCardStub {
    static func card(threshold: Double, decision extra: String = "") -> ModelCard {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("headsup-card-\(UUID().uuidString).json").path
        let json = """
            {"format": "headsup-model-card", "input": {"layout": "time-major", "shape": [50, 9], "convention": "android"},
             "decision": {"threshold": \(threshold)\(extra)}}
            """
        _ = FileManager.default.createFile(atPath: path, contents: Data(json.utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try! ModelCard.load(path: path)
    }
}
