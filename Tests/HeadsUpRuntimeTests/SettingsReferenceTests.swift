import Foundation
import HeadsUpModel
import HeadsUpRuntime
import HeadsUpTestSupport
import Testing

/// docs/configuration.md's settings table is generated from the schema
/// (`headsup config reference --markdown`, `make docs`): it must say what the code does.
@Suite("The settings reference page")
struct SettingsReferenceTests {
    @Test func theDocumentationsTableIsTheSchemas() throws {
        let card = try ModelCard.load(path: TestEnvironment.path("weights/model.json"))
        let generated = try SettingsReference.markdown(card: card)
        let page = try String(contentsOfFile: TestEnvironment.path("docs/configuration.md"), encoding: .utf8)
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false)
        let begin = try #require(lines.firstIndex { $0.hasPrefix("<!-- BEGIN settings table") })
        let end = try #require(lines.firstIndex { $0.hasPrefix("<!-- END settings table") })
        let table = lines[(begin + 1)..<end].joined(separator: "\n") + "\n"
        #expect(table == generated, "docs/configuration.md's settings table is stale: run make docs")
    }

    @Test func everyKeyHasARowWithItsDefaultAndTheCardsValuesAreMarked() throws {
        let card = try ModelCard.load(path: TestEnvironment.path("weights/model.json"))
        let rows = try SettingsReference.rows(card: card)
        #expect(rows.map { $0[0] } == SettingsSchema.keys.map(\.name))
        let threshold = try #require(rows.first { $0[0] == "distraction.enter_threshold" })
        #expect(threshold[3] == "\(card.threshold) (model card)")
        #expect(try SettingsReference.rows(card: nil).allSatisfy { !$0[3].contains("model card") })
    }
}
