import Glibc

/// Seconds from a fixed origin (boot) that never go back: for durations,
/// timeouts and the pipeline's time base. Passed in, so tests drive it.
public protocol MonotonicClock: Sendable {
    func now() -> Double
}

/// Seconds since 1970 as a person reads them. May step forwards or back
/// (NTP, a board without a real-time clock): only for display and records.
public protocol WallClock: Sendable {
    func secondsSince1970() -> Double
}

/// CLOCK_MONOTONIC.
public struct SystemMonotonicClock: MonotonicClock {
    public init() {}
    public func now() -> Double { Self.read(CLOCK_MONOTONIC) }

    static func read(_ id: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(id, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }
}

/// CLOCK_REALTIME.
public struct SystemWallClock: WallClock {
    public init() {}
    public func secondsSince1970() -> Double { SystemMonotonicClock.read(CLOCK_REALTIME) }
}
