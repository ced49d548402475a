import Foundation
import HeadsUpData
import HeadsUpPipeline
import HeadsUpSystem

/// A scorer that records how long each window takes, for the latency
/// percentiles of the live summary.
final class TimedScorer: WindowScorer, @unchecked Sendable {
    let inner: any WindowScorer
    private let clock: any MonotonicClock
    private let lock = NSLock()
    private var durations: [Double] = []

    init(inner: any WindowScorer, clock: any MonotonicClock) {
        self.inner = inner
        self.clock = clock
    }

    func score(_ window: MotionWindow) -> Double {
        let start = clock.now()
        let result = inner.score(window)
        let elapsed = clock.now() - start
        lock.withLock { durations.append(elapsed) }
        return result
    }

    /// The durations since the last call.
    func drain() -> [Double] {
        lock.withLock {
            defer { durations.removeAll() }
            return durations
        }
    }
}
