/// What the person was doing with the phone: the class the model predicts.
///
/// The raw values are the session CSV's `mode` column and the model's target
/// (1 = distracted), so they must never change.
public enum ActivityLabel: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Phone in a pocket or bag: the person is not looking at it.
    case pocket = 0
    /// Phone held in the hands, screen watched: the person is distracted.
    case hands = 1

    /// Accepts what a person types on the command line: `hands`, `pocket`,
    /// `1`, `0`, `distracted`, `attentive`.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "1", "hands", "hand", "distracted": self = .hands
        case "0", "pocket", "attentive": self = .pocket
        default: return nil
        }
    }

    public var description: String { self == .hands ? "hands" : "pocket" }
}
