/// How the 50 Hz grid is cut into model windows.
public struct WindowingConfiguration: Sendable, Equatable {
    /// Samples per window (50 = one second at 50 Hz).
    public var length: Int
    /// Samples between the starts of consecutive windows.
    public var hop: Int
    public var labelPolicy: LabelPolicy

    public init(length: Int = 50, hop: Int = 25, labelPolicy: LabelPolicy = .majority) {
        precondition(length > 0 && hop > 0, "window length and hop must be positive")
        self.length = length
        self.hop = hop
        self.labelPolicy = labelPolicy
    }
}
