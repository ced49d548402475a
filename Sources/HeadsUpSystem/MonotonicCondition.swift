import Glibc

/// A lock and a condition whose timed waits run on CLOCK_MONOTONIC.
/// Foundation's NSCondition waits until a wall-clock Date: a clock that
/// steps back an hour (NTP on a board without a real-time clock) makes
/// such a wait last an hour longer. Deadlines here are
/// ``SystemMonotonicClock`` seconds.
package final class MonotonicCondition: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }
    package func signal() { pthread_cond_signal(condition) }
    package func broadcast() { pthread_cond_broadcast(condition) }

    /// Waits (holding the lock) until signalled.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits (holding the lock) until signalled or until `deadline`, a
    /// monotonic time in seconds; false once the deadline has passed.
    @discardableResult
    package func wait(until deadline: Double) -> Bool {
        let whole = deadline.rounded(.down)
        var time = timespec(tv_sec: Int(whole), tv_nsec: Int((deadline - whole) * 1e9))
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    /// Waits (holding the lock) for at most `seconds`.
    @discardableResult
    package func wait(seconds: Double) -> Bool { wait(until: SystemMonotonicClock().now() + seconds) }
}
