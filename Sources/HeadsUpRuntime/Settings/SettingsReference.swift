import Foundation
import HeadsUpModel

/// The reference table of every setting, generated from ``SettingsSchema``
/// so the documentation cannot drift from the code: docs/configuration.md
/// holds its Markdown (`headsup config reference --markdown`, `make docs`),
/// and a test fails when the page is stale.
public enum SettingsReference {
    /// One row a key: name, what it sets, what it accepts, its default;
    /// values that `card` (the shipped model's) sets are marked.
    public static func rows(card: ModelCard?) throws(SettingsError) -> [[String]] {
        let resolved = try LayeredSettings().resolved(card: card)
        return SettingsSchema.keys.map { key in
            let value = key.displayed(key.value(in: resolved.settings)).replacingOccurrences(of: "|", with: "\\|")
            let fromCard = resolved.source(of: key.name) != ResolvedSettings.defaultSource
            return [key.name, key.help, key.accepts, fromCard ? "\(value) (model card)" : value]
        }
    }

    public static let header = ["key", "what it sets", "accepts", "default"]

    /// The rows as a Markdown table, keys in code spans.
    public static func markdown(card: ModelCard?) throws(SettingsError) -> String {
        let lines = try rows(card: card).map { row in
            "| `\(row[0])` | \(row[1]) | \(row[2]) | \(row[3].isEmpty ? "(empty)" : row[3]) |"
        }
        return (["| " + header.joined(separator: " | ") + " |", "|---|---|---|---|"] + lines).joined(separator: "\n") + "\n"
    }
}
