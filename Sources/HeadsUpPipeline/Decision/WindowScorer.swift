import HeadsUpData

/// Scores a window: the probability that the phone is in the hands.
public protocol WindowScorer: Sendable {
    func score(_ window: MotionWindow) -> Double
}
