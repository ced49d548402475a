import Foundation
import HeadsUpSystem
import Testing

/// Timed waits on the monotonic clock: they end at their deadline, or when signalled.
@Suite("Monotonic condition")
struct MonotonicConditionTests {
    @Test func aTimedWaitEndsAtItsDeadline() {
        let clock = SystemMonotonicClock()
        let condition = MonotonicCondition()
        let start = clock.now()
        condition.lock()
        let signalled = condition.wait(until: start + 0.05)
        condition.unlock()
        #expect(!signalled)
        #expect(clock.now() - start >= 0.05)
        #expect(clock.now() - start < 2)
    }

    @Test func aSignalEndsTheWaitEarly() {
        let clock = SystemMonotonicClock()
        let condition = MonotonicCondition()
        nonisolated(unsafe) var ready = false
        let start = clock.now()
        Thread.detachNewThread {
            usleep(20_000)
            condition.lock()
            ready = true
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        while !ready, condition.wait(until: start + 10) {}
        condition.unlock()
        #expect(ready)
        #expect(clock.now() - start < 5)
    }
}
