import Foundation
import HeadsUpCrossings
import HeadsUpTestSupport
import Testing

@testable import HeadsUpRuntime

@Suite("Crossing and location settings")
struct CrossingSettingsTests {
    @Test func theDefaultsAreTheMonitorsDefaults() throws {
        let settings = try LayeredSettings().resolved().settings
        #expect(settings.crossingMonitor == CrossingMonitorConfiguration())
        #expect(settings.crossings.file == nil)
        #expect(settings.location.source == .auto)
        #expect(try LayeredSettings().resolved().crossingGrid() == nil, "no file: beacons only")
    }

    @Test func kindsAreNamedOrAll() throws {
        var layers = LayeredSettings()
        try layers.addYAML("crossings:\n  kinds: [signals, marked]\nlocation:\n  max_accuracy: 20\n  source: gpsd\n", source: "user.yaml")
        let settings = try layers.resolved().settings
        #expect(settings.crossings.kinds == [.signals, .marked])
        #expect(settings.crossingMonitor.kinds == [.signals, .marked])
        #expect(settings.crossingMonitor.maximumAccuracy == 20)
        #expect(settings.location.source == .gpsd)
        var all = LayeredSettings()
        try all.set("crossings.kinds", .string("all"))
        #expect(try all.resolved().settings.crossings.kinds == Set(CrossingKind.allCases))
        var wrong = LayeredSettings()
        let error = #expect(throws: SettingsError.self) { try wrong.set("crossings.kinds", .list(["marked", "zebra"])) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("'zebra' is not a crossing kind"))
        #expect(throws: SettingsError.self) { try wrong.set("crossings.kinds", .list([])) }
        #expect(throws: SettingsError.self) { try wrong.set("location.max_speed", .number(50)) }
        #expect(throws: SettingsError.self) { try wrong.set("location.source", .string("gps")) }
    }

    /// A crossings file that cannot be read stops the pipeline's setup with the key and the file's own error; source none leaves it unread.
    @Test func aBadCrossingsFileNamesTheKeyAndTheFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("c.tsv", "not a crossings file\n")
        var layers = LayeredSettings()
        try layers.set("crossings.file", .string(path))
        let error = #expect(throws: SettingsError.self) { try layers.resolved().crossingGrid() }
        let text = error.map { "\($0)" } ?? ""
        #expect(text.contains("crossings.file") && text.contains("\(path): not a HeadsUp crossings file"), "\(text)")
        try layers.set("location.source", .string("none"))
        #expect(try layers.resolved().crossingGrid() == nil)
    }
}
