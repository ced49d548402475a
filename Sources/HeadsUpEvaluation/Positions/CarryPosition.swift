import Foundation
import HeadsUpData

/// Where a session's phone was carried while it was not being looked at:
/// what `evaluate` groups its per-position figures by. A model that is calm
/// in a pocket can still fire in a bag or on an armband, and the pooled
/// window figures hide that, so each position is reported on its own.
///
/// The positions are ``PhonePosition``'s (the one list `record` takes too).
/// A session's position comes from, in this order: its sidecar (`walk.csv`
/// → `walk.json`, the `position` field `record --label` writes), the dataset
/// manifest's `position` field for the session, or a word of the file name
/// (the carry-positions set's `Pixel_Jamie_Hard_Purse_2_0.csv`). Sessions
/// with none of these have no position, and their not-distracted windows are
/// reported as `unspecified`.
public enum CarryPosition {
    /// The phone held in front and looked at: the distracted label.
    public static let hands = PhonePosition.hands.rawValue
    /// The carry-positions data set (accelerometer only), relative to the
    /// repository root: it is not committed, CI has shared/ beside its clone.
    public static let defaultDataset = "../shared/datasets/carry-positions-v1"

    /// The group of not-distracted windows of sessions with no position.
    public static let unspecified = "unspecified"

    /// The position a file name names, if its whole stem or one of its `_`
    /// or `.` separated words is a position's name.
    public static func fromFileName(_ path: String) -> String? {
        let stem = EvaluationRun.sessionName(of: path)
        if let whole = PhonePosition(argument: stem) { return whole.rawValue }
        for word in stem.split(whereSeparator: { $0 == "_" || $0 == "." }) {
            // Single digits and the data set's 0/1 label suffix are not positions.
            if word.allSatisfy(\.isNumber) { continue }
            if let position = PhonePosition(argument: String(word)) { return position.rawValue }
        }
        return nil
    }

    /// The `position` field of a sidecar's JSON text; nil when it has none
    /// or names no position.
    public static func fromSidecar(_ data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let name = object["position"] as? String else {
            return nil
        }
        return PhonePosition(argument: name)?.rawValue
    }

    /// The position of the session at `path`: sidecar, then `manifest`
    /// (positions by session path), then the file name.
    public static func resolve(path: String, manifest: [String: String] = [:]) -> String? {
        if let data = FileManager.default.contents(atPath: PhonePosition.sidecarPath(ofSession: path)), let position = fromSidecar(data) {
            return position
        }
        if let position = manifest[path] { return PhonePosition(argument: position)?.rawValue ?? position }
        return fromFileName(path)
    }
}
