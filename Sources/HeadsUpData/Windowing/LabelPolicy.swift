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
