import Foundation
import Glibc
import HeadsUpData
import Synchronization

/// Reads every polled device on one thread and one timer: each tick (an
/// absolute CLOCK_MONOTONIC deadline slept with `clock_nanosleep`
/// TIMER_ABSTIME) reads every channel of every connected device with one
/// `pread` each on files kept open, and the readings go to the reader in
/// one push every few ticks (``PollSchedule``). A thread per device woke
/// 50 times a second per device and pushed, waking the consumer, as often.
final class PollingStreamer: @unchecked Sendable {
    let devices: [PolledDevice]
    let queue: SensorEventQueue
    private let stopFlag = Atomic<Bool>(false)
    private var thread: Thread?

    init(devices: [PolledDevice], queue: SensorEventQueue) {
        self.devices = devices
        self.queue = queue
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "headsup-iio-poll"
        self.thread = thread
        thread.start()
    }

    func stop() { stopFlag.store(true, ordering: .relaxed) }
    var stopped: Bool { stopFlag.load(ordering: .relaxed) }
    var isFinished: Bool { thread?.isFinished ?? true }

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
