import Foundation
import Glibc
import HeadsUpData

/// Reads every polled device on one thread and one timer: each tick (an
/// absolute CLOCK_MONOTONIC deadline slept with `clock_nanosleep`
/// TIMER_ABSTIME) reads every channel of every connected device with one
/// `pread` each on files kept open, and the readings go to the reader in
/// one push every few ticks (``PollSchedule``). A thread per device woke
/// 50 times a second per device and pushed, waking the consumer, as often.
final class PollingStreamer: @unchecked Sendable {
    let devices: [PolledDevice]
    let queue: SensorEventQueue
    private let worker = StoppableThread(name: "headsup-iio-poll")

    init(devices: [PolledDevice], queue: SensorEventQueue) {
        self.devices = devices
        self.queue = queue
    }

    func start() { worker.start { [self] in run() } }
    func stop() { worker.stop() }
    var stopped: Bool { worker.stopped }
    var isFinished: Bool { worker.isFinished }

    private func run() {
        var schedule = PollSchedule(start: Self.nanoseconds())
        var events: [SensorEvent] = []
        events.reserveCapacity(8 * devices.count * PollSchedule.defaultHandOverTicks)
        while !stopped {
            let now = Self.nanoseconds()
            let seconds = Double(now) * 1e-9
            var urgent = false
            for device in devices where device.tick(now: seconds, time: seconds, into: &events) { urgent = true }
            if schedule.ticked(now: Self.nanoseconds(), urgent: urgent) {
                queue.push(events)
                events.removeAll(keepingCapacity: true)
            }
            var deadline = timespec(tv_sec: Int(schedule.deadline / 1_000_000_000), tv_nsec: Int(schedule.deadline % 1_000_000_000))
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nil) == EINTR {}
        }
        queue.push(events)
    }

    static func nanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
