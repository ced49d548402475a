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
    /// The phone went in or out of use (`process(screen:at:)`).
    case screen(ScreenChange)
}
