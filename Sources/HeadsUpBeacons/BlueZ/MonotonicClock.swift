import Glibc

/// Where beacon code gets the time. Passed in, so tests and replays can
/// drive the region logic with synthetic time.
public protocol MonotonicClock: Sendable {
    /// Seconds from an arbitrary fixed origin; never goes back.
    func now() -> Double
}

/// CLOCK_MONOTONIC: immune to wall-clock changes.
public struct SystemMonotonicClock: MonotonicClock {
    public init() {}

    public func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }
}
