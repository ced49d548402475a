/// Where the phone was while a session was recorded: in the hands and looked
/// at (the distracted class), or one of the places people carry a phone.
///
/// The model has two classes, so every carry position is label 0 in the
/// session CSV; the position itself goes into the recording's sidecar, so a
/// personal model can be tuned and judged per position (a model calm in a
/// pocket can still fire in a bag). This is the one list of positions: the
/// record command, its help and the sidecar read it from here.
public enum PhonePosition: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Held in front, screen looked at: distracted (label 1).
    case hands
    case pocket
    case bag
    case purse
    case armband
    case neckPouch = "neck-pouch"
    /// In a hand swinging at the side, not looked at.
    case swingingArm = "swinging-arm"

    /// The CSV's label for this position: 1 for the hands, 0 for every carry position.
    public var label: ActivityLabel { self == .hands ? .hands : .pocket }

    /// The position `record`'s `p` key (and `space` from the hands) returns
    /// to: this one for a carry position, the pocket for the hands.
    public var carryPosition: PhonePosition { self == .hands ? .pocket : self }

    /// Accepts the names above and what people type for them: `1`,
    /// `distracted`, `hand` (hands), `0`, `attentive` (pocket, as `record`
    /// always took them), `swinging`, `neckpouch`, `handbag`, `backpack`;
    /// and the carry-positions data set's file-name words (`InHand`,
    /// `FrontPocket`, `BackPocket`, `SwingingArm`, `NeckPouch`).
    public init?(argument: String) {
        let word = argument.lowercased().replacingUnderscores()
        if let exact = PhonePosition(rawValue: word) {
            self = exact
            return
        }
        switch word {
        case "1", "hand", "distracted", "inhand": self = .hands
        case "0", "attentive", "frontpocket", "backpocket": self = .pocket
        case "swinging", "swing", "swingingarm": self = .swingingArm
        case "neckpouch", "neck": self = .neckPouch
        case "handbag": self = .purse
        case "backpack", "rucksack": self = .bag
        default: return nil
        }
    }

    /// The sidecar file beside a session CSV that records its position
    /// (`record` writes it; `evaluate` reads it): `walk.csv` → `walk.json`.
    public static func sidecarPath(ofSession session: String) -> String {
        let slash = session.lastIndex(of: "/")
        if let dot = session.lastIndex(of: "."), slash.map({ dot > $0 }) ?? true, dot != session.startIndex {
            return String(session[..<dot]) + ".json"
        }
        return session + ".json"
    }

    /// `hands|pocket|bag|…`, for help texts and error messages.
    public static var choices: String { allCases.map(\.rawValue).joined(separator: "|") }

    public var description: String { rawValue }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
