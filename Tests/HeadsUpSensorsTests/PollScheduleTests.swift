import HeadsUpData
import Testing

@testable import HeadsUpSensors

/// The one polling thread's timer and hand-overs, and the retry policy it
/// applies per device, on synthetic time.
@Suite("Poll schedule")
struct PollScheduleTests {
    let ms: Int64 = 1_000_000

    @Test func deadlinesAreAbsoluteAndDoNotDriftWithTheTimeReadsTake() {
        var schedule = PollSchedule(start: 1_000 * ms, handOverTicks: 5)
        var now = schedule.deadline
        for tick in 1...100 {
            // Each tick's reads take 0.3 to 7 ms, and the wake-up comes late by up to 2 ms.
            let reads = Int64(300_000 + (tick * 611_000) % 6_700_000)
            _ = schedule.ticked(now: now + reads)
            #expect(schedule.deadline == 1_000 * ms + Int64(tick) * 20 * ms, "tick \(tick)")
            now = schedule.deadline + Int64((tick * 97_000) % 2_000_000)
        }
        #expect(schedule.skippedTicks == 0)
    }

    @Test func readingsAreHandedOverOnceEveryFewTicksAndAChangeOfStateAtOnce() {
        var schedule = PollSchedule(start: 0, handOverTicks: 12)
        var handOvers: [Int] = []
        for tick in 1...60 {
            if schedule.ticked(now: schedule.deadline + ms, urgent: tick == 30) { handOvers.append(tick) }
        }
        #expect(handOvers == [12, 24, 30, 42, 54])
        #expect(PollSchedule.defaultHandOverTicks * Int(PollSchedule.defaultPeriod / ms) <= 250, "no later than a buffered refill")
    }

    @Test func anOversleptTickIsSkippedNotCaughtUpInABurst() {
        var schedule = PollSchedule(start: 0)
        _ = schedule.ticked(now: 1 * ms)
        #expect(schedule.deadline == 20 * ms)
        // The thread wakes 75 ms late: the ticks at 20, 40, 60 and 80 ms are past.
        _ = schedule.ticked(now: 95 * ms)
        #expect(schedule.deadline == 100 * ms)
        #expect(schedule.skippedTicks == 3)
        // A deadline met exactly is past too (clock_nanosleep would return at once).
        _ = schedule.ticked(now: 120 * ms)
        #expect(schedule.deadline == 140 * ms)
        #expect(schedule.skippedTicks == 4)
    }

    /// A device whose reads take 75 ms (st_magn's one-shot reads of three
    /// axes) on its own thread: the skipped ticks count, so its readings are
    /// handed over every 0.24 s of time, not every 12 reads (0.9 s).
    @Test func handOversKeepToTimeWhenReadsTakeSeveralTicks() {
        var schedule = PollSchedule(start: 0)
        var now: Int64 = 0
        var handOverTimes: [Int64] = []
        for _ in 0..<20 {
            now = max(now, schedule.deadline) + 75 * ms
            if schedule.ticked(now: now) { handOverTimes.append(now) }
        }
        let gaps = zip(handOverTimes, handOverTimes.dropFirst()).map { $1 - $0 }
        #expect(!gaps.isEmpty)
        #expect(gaps.allSatisfy { $0 <= 320 * ms }, "\(gaps.map { $0 / ms }) ms between hand-overs")
    }

    /// Devices at their own rates (a gyroscope at 59.5 Hz, magnetometers at
    /// 40 and 80 Hz, an accelerometer at 50 Hz) read together on the one
    /// 50 Hz tick, with late wake-ups and slow reads, still fill every point
    /// of the aligner's 50 Hz grid.
    @Test func devicesAtTheirOwnRatesPolledOnOneTickLandOnTheGrid() {
        for magnetometerRate in [40.0, 80.0] {
            let rates: [SensorKind: Double] = [.accelerometer: 50, .gyroscope: 59.5, .magnetometer: magnetometerRate]
            let phases: [SensorKind: Double] = [.accelerometer: 0.0031, .gyroscope: 0.0117, .magnetometer: 0.0042]
            // What a polled `_raw` shows at time t: the device's latest conversion.
            func raw(_ kind: SensorKind, at t: Double) -> SIMD3<Double> {
                let rate = rates[kind]!
                let sampled = phases[kind]! + ((t - phases[kind]!) * rate).rounded(.down) / rate
                return SIMD3(sampled, -sampled, Double(kind.rawValue.count))
            }
            var aligner = SensorAligner(kinds: [.accelerometer, .gyroscope, .magnetometer])
            var schedule = PollSchedule(start: 100_000 * ms + 3 * ms)
            var batch: [(SensorKind, Double, SIMD3<Double>)] = []
            var emitted: [Int64] = []
            var handOvers = 0
            for tick in 0..<500 {
                let woke = schedule.deadline + Int64((tick * 131_000) % 3_000_000)
                let time = Double(woke) * 1e-9
                for kind in [SensorKind.accelerometer, .gyroscope, .magnetometer] { batch.append((kind, time, raw(kind, at: time))) }
                if schedule.ticked(now: woke + 400_000) {
                    handOvers += 1
                    for (kind, time, values) in batch {
                        aligner.push(kind, time: time, values: values) { event in
                            if case .sample(_, let index) = event { emitted.append(index) }
                        }
                    }
                    batch.removeAll()
                }
            }
            #expect(aligner.droppedCount == 0, "at \(magnetometerRate) Hz")
            #expect(emitted.count >= 480, "\(emitted.count) grid points from 500 ticks (10 s) at \(magnetometerRate) Hz")
            for (a, b) in zip(emitted, emitted.dropFirst()) { #expect(b == a + 1, "consecutive grid points") }
            #expect(handOvers == 500 / PollSchedule.defaultHandOverTicks)
        }
    }

    @Test func aBusyDeviceIsSaidOnceAndRetriedOnItsBackoffWhileTheOthersGoOn() {
        var trouble = DeviceTrouble(busyBackoff: (0.25, 2.0), lostBackoff: (0.25, 5.0))
        #expect(trouble.mayTry(now: 0))
        #expect(trouble.failed(busy: true, now: 10) == true)
        #expect(!trouble.mayTry(now: 10.2))
        #expect(trouble.mayTry(now: 10.25))
        #expect(trouble.failed(busy: true, now: 10.25) == false, "the same episode is not said again")
        #expect(trouble.retryAt == 10.75)
        var now = 10.75
        for _ in 0..<6 {
            _ = trouble.failed(busy: true, now: now)
            now = trouble.retryAt
        }
        #expect(trouble.failed(busy: true, now: now) == false)
        #expect(trouble.retryAt - now == 2.0, "the busy backoff stops at its longest")
        #expect(trouble.failed(busy: false, now: now) == true, "lost after busy is a new episode")
        #expect(trouble.retryAt - now == 0.25)
        #expect(trouble.recovered() == true)
        #expect(trouble.recovered() == false)
        #expect(trouble.mayTry(now: now))
    }

    @Test func rawValuesAreParsedFromTheKernelsBytes() {
        func parse(_ text: String) -> Int64? {
            Array(text.utf8).withUnsafeBytes { RawAttribute.integer(in: $0) }
        }
        #expect(parse("1234\n") == 1234)
        #expect(parse("-32768\n") == -32768)
        #expect(parse("+7") == 7)
        #expect(parse("0\n") == 0)
        #expect(parse("12.5\n") == nil, "not an integer: parsed as text")
        #expect(parse("\n") == nil)
        #expect(parse("-") == nil)
        #expect(parse("12 34") == nil)
    }
}
