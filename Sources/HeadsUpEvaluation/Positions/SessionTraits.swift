import Foundation
import HeadsUpData

/// Which phone recorded a session and in what pose it was held: what
/// `evaluate` groups its per-phone and per-pose figures by. A model that
/// finds the texting pose on one phone can miss the phone held upright, or
/// every pose on a phone whose sensors read differently, and the pooled
/// figures hide both.
///
/// A session's phone and pose come from, in this order: its sidecar
/// (`walk.csv` → `walk.json`, the fields `phone` and `pose`; `device` is
/// read as the phone), the dataset manifest's `phone` and `pose` fields for
/// the session, and for the phone the first word of a carry-positions file
/// name (`Pixel_Jamie_Hard_Purse_2_0.csv`: phone, walker, floor, position,
/// take, label). Free text: the names are the data set's own.
public struct SessionTraits: Sendable, Equatable {
    public var phone: String?
    public var pose: String?

    public init(phone: String? = nil, pose: String? = nil) { (self.phone, self.pose) = (phone, pose) }

    /// The phone and pose of a sidecar's JSON text (either may be missing).
    public static func fromSidecar(_ data: Data) -> SessionTraits {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return SessionTraits() }
        func text(_ key: String) -> String? { (object[key] as? String).flatMap { $0.isEmpty ? nil : $0 } }
        return SessionTraits(phone: text("phone") ?? text("device"), pose: text("pose"))
    }

    /// The phone a carry-positions file name names: its first word, when the
    /// name has that set's six words with a carry position fourth.
    public static func phoneFromFileName(_ path: String) -> String? {
        let words = EvaluationRun.sessionName(of: path).split(separator: "_").map(String.init)
        guard words.count == 6, PhonePosition(argument: words[3]) != nil, !words[0].isEmpty else { return nil }
        return words[0]
    }

    /// The session at `path`'s phone and pose: sidecar, then the manifest's
    /// (by session path), then (the phone) the file name.
    public static func resolve(path: String, phones: [String: String] = [:], poses: [String: String] = [:]) -> SessionTraits {
        let sidecar = FileManager.default.contents(atPath: PhonePosition.sidecarPath(ofSession: path)).map(fromSidecar) ?? SessionTraits()
        return SessionTraits(
            phone: sidecar.phone ?? phones[path] ?? phoneFromFileName(path), pose: sidecar.pose ?? poses[path])
    }
}
