import Foundation

/// The index of a model's cross-validation fold models (`weights/folds/folds.json`,
/// written by tools/training/train.py): fold k's model was trained without its
/// held-out sessions, so its scores on them are out of sample, and the
/// folds together cover every session once.
public struct CrossValidationFolds: Sendable {
    public struct Fold: Sendable {
        public var index: Int
        /// The fold model's file, relative to the index.
        public var file: String
        /// Session names (file names without `.csv`) it never saw.
        public var heldOut: [String]
    }

    /// The shipped model these folds stand in for, relative to the index's folder's parent.
    public var model: String
    public var folds: [Fold]

    public static func parse(_ data: Data, source: String) throws(CrossValidationFoldsError) -> CrossValidationFolds {
        func fail(_ message: String) -> CrossValidationFoldsError { CrossValidationFoldsError(source: source, message: message) }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw fail("not a JSON object") }
        guard object["format"] as? String == "headsup-cv-folds" else { throw fail("not a HeadsUp folds index (no \"format\": \"headsup-cv-folds\")") }
        guard let model = object["model"] as? String else { throw fail("\"model\" is missing") }
        guard let entries = object["folds"] as? [[String: Any]], !entries.isEmpty else { throw fail("\"folds\" is missing or empty") }
        var folds: [Fold] = []
        for (position, entry) in entries.enumerated() {
            guard let file = entry["file"] as? String, !file.contains("/"), let heldOut = entry["held_out"] as? [String], !heldOut.isEmpty else {
                throw fail("fold \(position) needs \"file\" (a name in the same folder) and \"held_out\" (session names)")
            }
            folds.append(Fold(index: entry["fold"] as? Int ?? position, file: file, heldOut: heldOut))
        }
        let sessions = folds.flatMap(\.heldOut)
        guard Set(sessions).count == sessions.count else { throw fail("a session is held out by more than one fold") }
        return CrossValidationFolds(model: model, folds: folds)
    }
}

/// A folds index that cannot be used.
public struct CrossValidationFoldsError: Error, Sendable, CustomStringConvertible {
    public var source: String
    public var message: String
    public var description: String { "\(source): \(message)" }
}
