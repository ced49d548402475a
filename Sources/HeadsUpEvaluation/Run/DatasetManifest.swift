import Foundation

/// A dataset's manifest.json (datasets/phone-motion-v1/manifest.json, made
/// by tools/dataset_manifest.py): its sessions, each with its split. What
/// `evaluate` reads for its default test sessions and for cross-validation
/// folds' held-out sessions.
public struct DatasetManifest: Sendable {
    public struct Session: Sendable, Equatable {
        /// The file name without `.csv`: how folds name a session.
        public var name: String
        /// train or test.
        public var split: String
        public var path: String
        /// Where the phone was carried (CarryPosition), when the manifest says.
        public var position: String? = nil
        /// The phone and the pose it was held in (SessionTraits), when the manifest says.
        public var phone: String? = nil
        public var pose: String? = nil
    }

    public var path: String
    public var sessions: [Session]

    /// Reads the manifest at `path`; session paths are relative to its folder.
    public static func load(_ path: String) throws(EvaluationError) -> DatasetManifest {
        struct File: Decodable {
            struct Entry: Decodable {
                var file: String
                var split: String
                var position: String?
                var phone: String?
                var pose: String?
            }
            var sessions: [Entry]
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EvaluationError("\(path): cannot be read; give a dataset manifest (manifest.json), or name session files instead")
        }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch {
            throw EvaluationError("\(path): not a dataset manifest (a sessions list of file and split): \(error)")
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        return DatasetManifest(
            path: path,
            sessions: file.sessions.map { entry in
                Session(
                    name: URL(fileURLWithPath: entry.file).deletingPathExtension().lastPathComponent, split: entry.split,
                    path: folder.appendingPathComponent(entry.file).path, position: entry.position, phone: entry.phone, pose: entry.pose)
            })
    }

    /// The paths of the sessions of `split`, sorted; an error if there are none.
    public func paths(split: String) throws(EvaluationError) -> [String] {
        let paths = sessions.filter { $0.split == split }.map(\.path).sorted()
        guard !paths.isEmpty else { throw EvaluationError("\(path): no sessions with split \"\(split)\"") }
        return paths
    }

    /// The positions the manifest names, by session path (for CarryPosition.resolve).
    public var positions: [String: String] {
        Dictionary(sessions.compactMap { s in s.position.map { (s.path, $0) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The phones the manifest names, by session path (for SessionTraits.resolve).
    public var phones: [String: String] {
        Dictionary(sessions.compactMap { s in s.phone.map { (s.path, $0) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The poses the manifest names, by session path (for SessionTraits.resolve).
    public var poses: [String: String] {
        Dictionary(sessions.compactMap { s in s.pose.map { (s.path, $0) } }, uniquingKeysWith: { a, _ in a })
    }

    /// The session named `name` (a fold's held-out entry).
    public func session(named name: String) -> Session? { sessions.first { $0.name == name } }
}

/// An evaluation that cannot run; the message says what to give instead.
public struct EvaluationError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
