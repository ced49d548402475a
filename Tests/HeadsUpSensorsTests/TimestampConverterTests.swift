import HeadsUpSensors
import HeadsUpSystem
import Testing

/// Realtime kernel stamps onto the monotonic clock across wall-clock steps,
/// with synthetic clocks: monotonic time t, realtime = t + offset, the
/// offset stepping between two refills.
@Suite("Timestamp converter")
struct TimestampConverterTests {
    /// Refills of 10 samples at 50 Hz; `step` seconds added to realtime after refill `at`.
    func run(step: Double, at stepRefill: Int, refills: Int = 10) -> [Double] {
        var converter = TimestampConverter()
        var offset = 1_700_000_000.0
        var output: [Double] = []
        var sample = 0
        for refill in 0..<refills {
            // The samples of this refill were stamped before it was read; the step lands
            // after the first half of refill `stepRefill` was stamped.
            var stamps: [Double] = []
            for index in 0..<10 {
                if refill == stepRefill, index == 5 { offset += step }
                stamps.append(Double(sample) * 0.02 + offset)
                sample += 1
            }
            let now = Double(sample - 1) * 0.02 + 0.01
            converter.measured(offset: offset)
            for stamp in stamps { output.append(converter.convert(stamp, now: now)) }
        }
        return output
    }

    @Test(arguments: [86_400.0, -3_600.0, 0.0])
    func aWallClockStepLeavesTheConvertedTimesOnTheGrid(step: Double) {
        let times = run(step: step, at: 4)
        #expect(times.count == 100)
        for (index, time) in times.enumerated() {
            #expect(abs(time - Double(index) * 0.02) < 1e-6, "sample \(index) at \(time) after a \(step) s step")
        }
    }

    @Test func smallDriftIsNotAStep() {
        var converter = TimestampConverter()
        converter.measured(offset: 100)
        #expect(abs(converter.convert(110, now: 10.1) - 10) < 1e-9)
        converter.measured(offset: 100.01)
        #expect(abs(converter.convert(110.03, now: 10.1) - 10.02) < 1e-9)
    }
}
