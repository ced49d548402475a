import Foundation

/// Where a session's phone was carried while it was not being looked at:
/// what `evaluate` groups its per-position figures by. A model that is calm
/// in a pocket can still fire in a bag or on an armband, and the pooled
/// window figures hide that, so each position is reported on its own.
///
/// A session's position comes from, in this order: a sidecar file beside the
/// CSV (`walk.csv` → `walk.position`, its first word), the dataset
/// manifest's `position` field for the session, or a token of the file name
/// (the carry-positions set's `Pixel_Jamie_Hard_Purse_2_0.csv`). Sessions
/// with none of these have no position, and their not-distracted windows are
/// reported as `unspecified`.
public enum CarryPosition {
    /// The phone held in front and looked at: the distracted label.
    public static let hands = "hands"
    /// The carry-positions data set (accelerometer only), relative to the
    /// repository root: it is not committed, CI has shared/ beside its clone.
    public static let defaultDataset = "../shared/datasets/carry-positions-v1"

    /// The group of not-distracted windows of sessions with no position.
    public static let unspecified = "unspecified"

    /// File-name tokens (lowercased) and the position each names. The
    /// carry-positions set's names, and the plain words `record --label` writes.
    public static let nameTokens: [String: String] = [
        "inhand": hands, "hands": hands, "hand": hands,
        "frontpocket": "pocket", "backpocket": "pocket", "pocket": "pocket",
        "purse": "bag", "handbag": "bag", "bag": "bag", "backpack": "bag",
        "armband": "armband",
        "neckpouch": "neck-pouch", "neck-pouch": "neck-pouch",
        "swingingarm": "swinging-arm", "swinging-arm": "swinging-arm",
    ]

    /// The sidecar that names a session's position: `walk.csv` → `walk.position`.
    public static func sidecarPath(of sessionPath: String) -> String {
        let url = URL(fileURLWithPath: sessionPath)
        return url.deletingPathExtension().appendingPathExtension("position").path
    }

    /// The position a file name names, if one of its `_`, `-` or `.`
    /// separated tokens (or the whole stem) is a known carry position.
    public static func fromFileName(_ path: String) -> String? {
        let stem = EvaluationRun.sessionName(of: path).lowercased()
        if let whole = nameTokens[stem] { return whole }
        for token in stem.split(whereSeparator: { $0 == "_" || $0 == "." }) {
            if let position = nameTokens[String(token)] { return position }
        }
        return nil
    }

    /// The first word of a sidecar's text, lowercased; nil when empty.
    public static func fromSidecarText(_ text: String) -> String? {
        text.split(whereSeparator: \.isWhitespace).first.map { String($0).lowercased() }
    }

    /// The position of the session at `path`: sidecar, then `manifest`
    /// (positions by session path), then the file name.
    public static func resolve(path: String, manifest: [String: String] = [:]) -> String? {
        if let data = FileManager.default.contents(atPath: sidecarPath(of: path)),
            let position = fromSidecarText(String(decoding: data, as: UTF8.self))
        {
            return position
        }
        if let position = manifest[path] { return position }
        return fromFileName(path)
    }
}
