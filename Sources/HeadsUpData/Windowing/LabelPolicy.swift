/// Which label a window gets when its samples disagree (a label switch in
/// the middle of a recording).
public enum LabelPolicy: String, Sendable, CaseIterable, Codable {
    /// The label of most samples; a tie goes to the last sample's label,
    /// the newest evidence.
    case majority
    /// Only windows whose samples all share one label are produced; the
    /// others are dropped and counted.
    case uniform
}

extension ActivityLabel {
    /// A window's label from its samples': the label of most of them, a
    /// tie going to the last sample's (the newest evidence). The windower
    /// and the evaluation's window labels both use this one rule.
    public static func majority(handsCount: Int, of length: Int, last: ActivityLabel?) -> ActivityLabel? {
        2 * handsCount == length ? last : (2 * handsCount > length ? .hands : .pocket)
    }
}
