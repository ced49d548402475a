import HeadsUpRuntime
import Testing

/// Settings files that would crash or swamp the YAML parser are refused
/// with their line, before it reads them; what HeadsUp's settings do use
/// (quotes, comments, block scalars, lists) passes.
@Suite("Settings file limits")
struct SettingsFileLimitsTests {
    func error(_ text: String) -> String? {
        var layers = LayeredSettings()
        do {
            try layers.addYAML(text, source: "config.yaml")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func deepNestingIsRefusedBeforeTheParserRecurses() {
        let brackets = "warning:\n  title: x\nx: " + String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000) + "\n"
        #expect(error(brackets)?.hasPrefix("config.yaml:3: nests more than 32 brackets deep") == true, "\(error(brackets) ?? "accepted")")
        let blocks = (0..<400).map { String(repeating: " ", count: $0) + "k\($0):" }.joined(separator: "\n") + " 1\n"
        #expect(error(blocks)?.contains("columns deep") == true, "\(error(blocks) ?? "accepted")")
        let dashes = "x: \n" + String(repeating: "- ", count: 300) + "1\n"
        #expect(error(dashes)?.contains("columns deep") == true, "\(error(dashes) ?? "accepted")")
    }

    @Test func anchorsAndAliasesAreRefused() {
        let bomb = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b]\n"
        #expect(error(bomb)?.hasPrefix("config.yaml:1: uses a YAML anchor or alias ('&…')") == true, "\(error(bomb) ?? "accepted")")
        #expect(error("warning:\n  title: *alias\n")?.hasPrefix("config.yaml:2: uses a YAML anchor or alias ('*…')") == true)
    }

    @Test func quotesCommentsAndBlockScalarsMayHoldTheSameCharacters() {
        let text = """
            # a comment with [[[[ & *stars
            warning:
              title: "Look *up* & [around"
              body: 'it''s *the* road & {more}'
              messages:
                - |
                  *bold* & [[[[ {{{{ not YAML here
                  - still the scalar
                - plain text with a*b and a&b
            notifications:
              command: [notify-send, "*urgent*"]
            """
        #expect(error(text) == nil, "\(error(text) ?? "")")
    }

    @Test func aKeyGivenTwiceIsWarnedAboutWithTheValueThatIsUsed() throws {
        var layers = LayeredSettings()
        try layers.addYAML("windowing:\n  hop: 10\nwindowing:\n  hop: 20\n", source: "twice.yaml")
        #expect(layers.warnings.contains("twice.yaml: key 'windowing' is given more than once; the last one is used"), "\(layers.warnings)")
        #expect(try layers.resolved().settings.windowing.hop == 20)
        var mixed = LayeredSettings()
        try mixed.addYAML("windowing.hop: 10\nwindowing:\n  hop: 20\n", source: "mixed.yaml")
        #expect(mixed.warnings.contains("mixed.yaml: key 'windowing.hop' is given both dotted and nested; 10 is used, not 20"), "\(mixed.warnings)")
        #expect(try mixed.resolved().settings.windowing.hop == 10)
    }

    @Test func aCommandIsAListWithAProgram() throws {
        #expect(
            error("notifications:\n  command: \"/bin/echo hi\"\n")?.contains("holds spaces; give a list: the program, then its arguments") == true)
        #expect(error("notifications:\n  command: [\"\"]\n")?.contains("the program (the first item) is empty") == true)
        var layers = LayeredSettings()
        try layers.addYAML("notifications:\n  command: notify-send\n", source: "one.yaml")
        #expect(try layers.resolved().settings.notifications.command == ["notify-send"])
    }
}
