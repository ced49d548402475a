import HeadsUpBeacons
import HeadsUpData

/// Everything the pipeline reports, in time order, for the log, the status
/// screen, JSON output, the sinks and the evaluator.
public enum PipelineEvent: Sendable, Equatable {
    case scored(ScoredWindow)
    /// The distraction tracker's state changed.
    case distraction(DistractionTracker.Change)
    /// The state a warning sees changed: distracted and not held back by the
    /// screen gate (`warning.only_while_screen_on`). It changes with the
    /// tracker's state and with the screen's; the evaluator counts episodes
    /// and latencies from it.
    case warnable(DistractionTracker.Change)
    case region(RegionEvent)
    case decision(WarningDecision)
    case warning(Warning)
    /// Windows skipped because scoring would have fallen behind.
    case windowsSkipped(count: Int, time: Double)
    /// A window ending at `time` left unscored because it holds a value
    /// that is not a finite number, or its score is not one (see
    /// ``UnscoredWindowReason``): the distraction state stands as it was.
    case windowUnscored(time: Double, reason: UnscoredWindowReason)
    /// The phone went in or out of use (`process(screen:at:)`).
    case screen(ScreenChange)
}

/// One window through the model and the decision rule.
public struct ScoredWindow: Sendable, Equatable {
    /// The window's end (its last sample's time).
    public var time: Double
    public var score: Double
    /// The tracker's smoothed score after this window.
    public var smoothed: Double
    /// The tracker's state after this window.
    public var distracted: Bool
    /// `distracted`, unless the screen gate holds warnings back (the phone
    /// is not in use): what a warning would see.
    public var warnable: Bool
    /// The walking detector's state when the window was scored.
    public var walking: Bool
    /// The window's label when its samples carry one (recorded sessions):
    /// the majority of its samples' labels (``ActivityLabel/majority(handsCount:of:last:)``).
    public var label: ActivityLabel?

    public init(
        time: Double, score: Double, smoothed: Double, distracted: Bool, warnable: Bool, walking: Bool, label: ActivityLabel? = nil
    ) {
        (self.time, self.score, self.smoothed, self.distracted, self.warnable, self.walking, self.label) =
            (time, score, smoothed, distracted, warnable, walking, label)
    }
}

/// Why a window was not scored. One NaN or infinity in the smoother would
/// stay there until the next gap (every later smoothed score NaN, no
/// warning ever), so such a window is skipped and counted, as a gap is.
public enum UnscoredWindowReason: String, Sendable, Equatable, CaseIterable {
    /// A sample in it is NaN, infinite, or too large for the model's Float32
    /// (a damaged CSV row, a driver's garbage).
    case nonFiniteSamples = "non-finite-samples"
    /// The model gave NaN or an infinity for it.
    case nonFiniteScore = "non-finite-score"

    public var text: String {
        switch self {
        case .nonFiniteSamples: "a sample is not a finite number"
        case .nonFiniteScore: "the model's score is not a finite number"
        }
    }
}
