import Foundation
import HeadsUpData
import HeadsUpSystem

/// What a device streamer reports to the reader.
public enum SensorEvent: Sendable {
    /// One converted reading: model units, device frame after the mount
    /// matrix, the model's axis convention; time in seconds on the kernel's clock.
    case reading(SensorKind, time: Double, values: SIMD3<Double>)
    /// A device stopped delivering (unplugged, timed out) and is being retried.
    case lost(device: String, reason: String)
    case returned(device: String)
    /// Another program holds the device (iio-sensor-proxy with its buffer):
    /// no readings until it lets go; retried with backoff.
    case busy(device: String, reason: String)
    /// A buffer a previous HeadsUp left on (killed) was turned off to be used again.
    case reclaimed(device: String, reason: String)
    /// The buffer's ownership record could not be written: after a crash
    /// the next start would take the buffer for someone else's.
    case unrecorded(device: String, reason: String)
    /// Samples the kernel's timestamps show were never delivered (overrun).
    case dropped(device: String, count: Int)
}

/// A thread-safe hand-over from the device threads to the consumer, which
/// either waits on it (`take(timeout:)`) or polls `readiness` beside its
/// other inputs and then takes without waiting.
final class SensorEventQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [SensorEvent] = []
    let readiness = ReadinessSignal()

    func push(_ new: [SensorEvent]) {
        guard !new.isEmpty else { return }
        condition.lock()
        events += new
        condition.signal()
        condition.unlock()
        readiness.raise()
    }

    /// Everything queued, waiting up to `timeout` seconds for something to arrive.
    func take(timeout: Double) -> [SensorEvent] {
        // Cleared before taking: a push in between raises it again, and the next poll finds that.
        readiness.clear()
        condition.lock()
        defer { condition.unlock() }
        if events.isEmpty, timeout > 0 { _ = condition.wait(until: Date().addingTimeInterval(timeout)) }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }
}
