import Foundation
import Glibc
import HeadsUpData
import HeadsUpSystem

/// Streams one buffered IIO device on its own thread (kernel buffer, small
/// refills, kernel timestamps); polled devices share ``PollingStreamer``'s
/// one thread. A device that vanishes is reported and retried
/// with backoff until it returns; nothing here crashes on a bad device.
/// A device someone else holds (its buffer on, its character device open)
/// is busy: reported once, retried with a shorter backoff, never read as
/// zeros. A buffer this streamer turns on is recorded in `ownership` and
/// turned off on every way out of the stream (libiio's buffer destroy).
final class DeviceStreamer: @unchecked Sendable {
    let uri: String
    let source: SensorSource
    let convention: AxisConvention
    let queue: SensorEventQueue
    let ownership: BufferOwnershipStore?
    private let converter: ReadingConverter
    private let worker: StoppableThread

    /// Samples per refill: 10–25, about a quarter second.
    var bufferSamples: Int { Self.bufferSamples(rate: source.rate) }

    /// The rate the buffer is sized for: the device's when it is a usable
    /// one (discovery checks it; this holds for any `SensorSource`), else 50 Hz.
    static func usableRate(_ rate: Double?) -> Double {
        guard let rate, rate.isFinite, rate >= SensorDiscovery.lowestRate, rate <= SensorDiscovery.highestRate else { return 50 }
        return rate
    }

    /// Samples per refill for `rate`: a quarter second, 10–25.
    static func bufferSamples(rate: Double?) -> Int { max(10, min(25, Int((usableRate(rate) / 4).rounded()))) }

    /// libiio's timeout for a refill of `samples` at `rate`: at least twice the buffer's duration, at least a second.
    static func timeoutMilliseconds(samples: Int, rate: Double?) -> UInt32 {
        UInt32(min(600_000, max(1000, 4 * Double(samples) / usableRate(rate) * 1000)))
    }

    /// Backoff after a busy device: the proxy's cycle is 700 ms, and it may let go at any moment.
    static let busyBackoff = (first: 0.25, longest: 2.0)
    /// Backoff after a lost device.
    static let lostBackoff = (first: 0.25, longest: 5.0)

    init(uri: String, source: SensorSource, convention: AxisConvention, queue: SensorEventQueue, ownership: BufferOwnershipStore?) {
        precondition(source.mode == .buffered, "polled devices are read by PollingStreamer")
        self.uri = uri
        self.source = source
        self.convention = convention
        self.queue = queue
        self.ownership = ownership
        converter = ReadingConverter(source: source, convention: convention)
        worker = StoppableThread(name: "headsup-iio-\(source.deviceName)")
    }

    func start() { worker.start { [self] in run() } }
    func stop() { worker.stop() }
    var stopped: Bool { worker.stopped }
    var isFinished: Bool { worker.isFinished }

    private func run() {
        let clock = SystemMonotonicClock()
        var trouble = DeviceTrouble(busyBackoff: Self.busyBackoff, lostBackoff: Self.lostBackoff)
        while !stopped {
            do {
                try stream {
                    if trouble.recovered() { queue.push([.returned(device: source.deviceName)]) }
                }
            } catch {
                if stopped { break }
                let busy = (error as? IIOError)?.meansBusy == true
                if trouble.failed(busy: busy, now: clock.now()) {
                    // Said once per episode: a busy device stays busy for as long as the proxy's claim.
                    queue.push([busy ? .busy(device: source.deviceName, reason: "\(error)") : .lost(device: source.deviceName, reason: "\(error)")])
                }
                sleep(until: trouble.retryAt)
            }
        }
    }

    /// Connects and streams until an error or stop; `connected` runs once data flows.
    private func stream(connected: () -> Void) throws {
        let located = try LocatedDevice(source: source, uri: uri)
        try streamBuffered(
            context: located.context, device: located.device, channels: located.channels,
            resolved: located.resolved.map { ($0.kind, $0.axes, $0.plan) }, connected: connected)
    }

    private func streamBuffered(
        context: IIOContext, device: IIODevice, channels: [IIOChannel], resolved: [(SensorKind, [IIOChannel], [SensorSource.Channel])],
        connected: () -> Void
    ) throws {
        guard let timestamp = channels.first(where: { $0.id == source.timestampChannel }) else {
            throw IIOError(operation: "finding the timestamp channel", target: device.label, errno: ENOENT)
        }
        for (_, axes, _) in resolved {
            for axis in axes { axis.enable() }
        }
        timestamp.enable()
        let clock = try monotonicTimestamps(device)
        var timestamps = TimestampConverter()
        if device.trigger == nil,
            let trigger = context.devices.first(where: { $0.isTrigger && $0.name.hasPrefix(device.name) })
        {
            try? device.setTrigger(trigger)
        }
        let rate = Self.usableRate(source.rate)
        let samples = bufferSamples
        // At least twice the buffer's duration: libiio's default 1 s always times out a 50-sample buffer at 50 Hz.
        let timeout = Self.timeoutMilliseconds(samples: samples, rate: source.rate)
        try context.setTimeout(milliseconds: timeout)
        try claimBuffer(device)
        let buffer: IIOBuffer
        do {
            buffer = try IIOBuffer(device: device, samples: samples)
        } catch {
            ownership?.remove(device: device.id)
            throw error
        }
        // The buffer off first, then its record: a kill in between leaves a record of a buffer that is off, which is harmless.
        defer {
            buffer.destroy()
            ownership?.remove(device: device.id)
        }
        var previous: Double?
        var announced = false
        while !stopped {
            _ = try buffer.refill()
            let now = Self.now(clock: "monotonic")
            if clock != "monotonic" { timestamps.measured(offset: Self.now(clock: clock) - now) }
            if !announced {
                connected()
                announced = true
            }
            var events: [SensorEvent] = []
            var dropped = 0
            buffer.forEachSample { sample in
                let stamp = Double(sample.raw(timestamp)) * 1e-9
                let time = clock == "monotonic" ? stamp : timestamps.convert(stamp, now: now)
                if let previous, time - previous > 1.5 / rate {
                    dropped += CheckedNumber.clampedInteger(((time - previous) * rate).rounded()) - 1
                }
                previous = time
                for (kind, axes, plan) in resolved {
                    events.append(
                        .reading(
                            kind, time: time,
                            values: converter.convert(
                                kind, raw: SIMD3(Double(sample.raw(axes[0])), Double(sample.raw(axes[1])), Double(sample.raw(axes[2]))), plan: plan)))
                }
            }
            if dropped > 0 { events.append(.dropped(device: source.deviceName, count: dropped)) }
            queue.push(events)
        }
    }

    /// Makes sure the buffer is HeadsUp's to turn on: libiio's buffer set-up
    /// writes `buffer/enable=0` before it opens the device, which would stop
    /// another program's stream. A buffer left on by a HeadsUp that is gone
    /// (kill -9) is turned off; anyone else's is left alone and the device is
    /// busy. Then records the claim, before the buffer exists.
    private func claimBuffer(_ device: IIODevice) throws(IIOError) {
        let current = ProcessIdentity.current()
        if device.isBufferEnabled == true {
            let verdict: BufferOwnershipRecord.Verdict =
                if let current {
                    BufferOwnershipRecord.judge(
                        enabledBuffer: ownership?.record(for: device.id), current: current, isRunning: BufferOwnershipStore.isRunning)
                } else {
                    .someoneElses("this process's identity is unknown (no /proc)")
                }
            switch verdict {
            case .someoneElses(let why):
                throw IIOError(operation: "opening the buffer (buffer/enable is 1: \(why))", target: device.label, errno: EBUSY)
            case .ours(let why):
                queue.push([.reclaimed(device: source.deviceName, reason: why)])
                try device.writeBufferAttribute("enable", "0")
            }
        }
        if let ownership, let current {
            do {
                try ownership.save(BufferOwnershipRecord(owner: current, device: device.id))
            } catch {
                queue.push([.unrecorded(device: source.deviceName, reason: "\(ownership.directory): \(error)")])
            }
        }
    }

    /// Asks the device for CLOCK_MONOTONIC timestamps; returns the clock it
    /// stamps with after that (the old one when the attribute is read-only).
    private func monotonicTimestamps(_ device: IIODevice) throws -> String {
        guard device.attributes.contains("current_timestamp_clock") else { return "realtime" }
        let current = (try? device.read("current_timestamp_clock"))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "realtime"
        guard current != "monotonic" else { return current }
        try? device.write("current_timestamp_clock", "monotonic")
        return (try? device.read("current_timestamp_clock"))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? current
    }

    /// Seconds on the clock the kernel uses for this device's timestamps.
    static func now(clock name: String) -> Double {
        let clock: clockid_t
        switch name {
        case "monotonic": clock = CLOCK_MONOTONIC
        case "monotonic_raw": clock = CLOCK_MONOTONIC_RAW
        case "boottime": clock = CLOCK_BOOTTIME
        default: clock = CLOCK_REALTIME
        }
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    private func sleep(until deadline: Double) {
        let clock = SystemMonotonicClock()
        while !stopped, clock.now() < deadline { usleep(20_000) }
    }
}
