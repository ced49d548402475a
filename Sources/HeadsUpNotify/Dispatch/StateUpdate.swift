/// A change in what the job is doing, for sinks that mirror its state
/// rather than only deliver warnings. Times are the pipeline's seconds.
public enum StateUpdate: Sendable, Equatable {
    /// A window was scored: the smoothed score and the states it leaves.
    case scored(smoothedScore: Double, distracted: Bool, walking: Bool, time: Double)
    /// The distraction state changed (also visible in the next `scored`,
    /// but this one comes at once).
    case distracted(Bool, time: Double)
    /// The user entered or left a crossing region.
    case region(name: String, inside: Bool, time: Double)
    /// Warnings were snoozed until `until` (seconds since the Unix epoch), or resumed (`nil`).
    case snoozed(until: Double?)
    /// Whether the phone is in use: on, off, locked, idle or unknown (the
    /// pipeline's `ScreenState` raw value; this module does not know the pipeline).
    case screen(String, time: Double)
}
