import Glibc
import HeadsUpData
import HeadsUpSystem

/// One polled device as the polling thread sees it: connected (its `raw`
/// files kept open) or in trouble and waiting for its retry time. Reading
/// never blocks on another device: a busy or lost device is skipped until
/// its backoff ends while the others are read on every tick. A buffer a
/// killed HeadsUp left on is turned off before polling (it would make
/// every raw read EBUSY); anyone else's is left on and the device is busy.
final class PolledDevice {
    let uri: String
    let source: SensorSource
    let converter: ReadingConverter
    let ownership: BufferOwnershipStore?
    private var sensors: [(kind: SensorKind, axes: [RawAttribute], plan: [SensorSource.Channel])]?
    /// Kept for as long as the raw files are read through it (iiod).
    private var located: LocatedDevice?
    private(set) var trouble = DeviceTrouble(busyBackoff: DeviceStreamer.busyBackoff, lostBackoff: DeviceStreamer.lostBackoff)

    init(uri: String, source: SensorSource, convention: AxisConvention, ownership: BufferOwnershipStore?) {
        self.uri = uri
        self.source = source
        converter = ReadingConverter(source: source, convention: convention)
        self.ownership = ownership
    }

    var isConnected: Bool { sensors != nil }

    /// One tick: connects if due, reads every channel, appends the readings
    /// (stamped `time`, seconds on CLOCK_MONOTONIC) and any change of state
    /// to `events`. Returns true when a change of state was appended.
    func tick(now: Double, time: Double, into events: inout [SensorEvent]) -> Bool {
        let before = events.count
        do {
            if sensors == nil {
                guard trouble.mayTry(now: now) else { return false }
                try connect(&events)
            }
            let start = events.count
            let waits = source.readsWaitForSample
            for sensor in sensors! {
                // A driver that waits for a fresh sample takes milliseconds per axis: its reading
                // is stamped at the middle of its reads, the others at the tick's time.
                let readStart = waits ? Self.monotonicSeconds() : time
                var raw = SIMD3<Double>()
                for axis in 0..<3 { raw[axis] = try sensor.axes[axis].read() }
                let stamp = waits ? (readStart + Self.monotonicSeconds()) / 2 : time
                events.append(.reading(sensor.kind, time: stamp, values: converter.convert(sensor.kind, raw: raw, plan: sensor.plan)))
            }
            if trouble.recovered() { events.insert(.returned(device: source.deviceName), at: start) }
        } catch {
            sensors = nil
            located = nil
            // A tick's readings from a device that failed half-way are not handed over.
            events.removeSubrange(before...)
            let busy = (error as? IIOError)?.meansBusy == true
            if trouble.failed(busy: busy, now: now) {
                // Said once per episode: a busy device stays busy for as long as the proxy's claim.
                events.append(busy ? .busy(device: source.deviceName, reason: "\(error)") : .lost(device: source.deviceName, reason: "\(error)"))
            }
        }
        return events[before...].contains { if case .reading = $0 { false } else { true } }
    }

    static func monotonicSeconds() -> Double { Double(PollingStreamer.nanoseconds()) * 1e-9 }

    private func connect(_ events: inout [SensorEvent]) throws {
        let located = try LocatedDevice(source: source, uri: uri)
        try releaseForgottenBuffer(located.device, &events)
        let sysfs = uri.hasPrefix("local:") ? "/sys/bus/iio/devices/\(located.device.id)" : nil
        sensors = located.resolved.map { kind, axes, plan in (kind, axes.map { RawAttribute($0, sysfsDevice: sysfs) }, plan) }
        self.located = located
    }

    private func releaseForgottenBuffer(_ device: IIODevice, _ events: inout [SensorEvent]) throws(IIOError) {
        guard device.isBufferEnabled == true, let current = ProcessIdentity.current() else { return }
        let verdict = BufferOwnershipRecord.judge(
            enabledBuffer: ownership?.record(for: device.id), current: current, isRunning: BufferOwnershipStore.isRunning)
        if case .ours(let why) = verdict {
            events.append(.reclaimed(device: source.deviceName, reason: why))
            try device.writeBufferAttribute("enable", "0")
            ownership?.remove(device: device.id)
        }
    }
}
