import HeadsUpBeacons

/// Everything the pipeline reports, in time order, for the log, the status
/// screen, JSON output and the sinks.
public enum PipelineEvent: Sendable, Equatable {
    case scored(time: Double, score: Double, smoothed: Double, distracted: Bool, walking: Bool)
    case distraction(DistractionTracker.Change)
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
