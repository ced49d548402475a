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

/// A wall-clock time as local time, "2026-11-24 14:22:07" by default, with
/// strftime(3): the C library's formatting, so a daemon that prints a time
/// does not load Foundation's ICU date formatters.
/// A time beyond what time_t and the calendar hold (a damaged state file's
/// 1e300, NaN) is shown as the number, never converted (which would trap).
public func localTime(_ secondsSince1970: Double, format: String = "%Y-%m-%d %H:%M:%S") -> String {
    // ±1e15 s is about ±31 million years: inside time_t and localtime_r's years.
    guard secondsSince1970.isFinite, abs(secondsSince1970) < 1e15 else { return String(secondsSince1970) }
    var seconds = time_t(secondsSince1970.rounded(.down))
    var parts = tm()
    guard localtime_r(&seconds, &parts) != nil else { return String(secondsSince1970) }
    var buffer = [CChar](repeating: 0, count: 64)
    let count = strftime(&buffer, buffer.count, format, &parts)
    return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
