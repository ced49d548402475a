import HeadsUpSensors
import Testing

/// Telling a driver that waits for a fresh sample on each `_raw` read from
/// one that reads a register, by how long one read takes.
@Suite("One-shot reads")
struct OneShotReadsTests {
    @Test func aReadOfAWholePeriodOrMoreIsAWait() {
        // st_lsm6dsx at 50 Hz: 3–4 periods, 60–80 ms.
        #expect(OneShotReads.waitsForSample(readSeconds: 0.070, rate: 50))
        // st_magn at 80 Hz: two periods, 25 ms.
        #expect(OneShotReads.waitsForSample(readSeconds: 0.025, rate: 80))
        // A register read: tens of microseconds, a loaded machine a few milliseconds.
        #expect(!OneShotReads.waitsForSample(readSeconds: 0.00005, rate: 50))
        #expect(!OneShotReads.waitsForSample(readSeconds: 0.004, rate: 50))
    }

    @Test func atTheHighestRatesAShortStallIsNotAWait() {
        // 1.5 ms at 952 Hz is longer than a period but within a loaded machine's noise.
        #expect(!OneShotReads.waitsForSample(readSeconds: 0.0015, rate: 952))
        #expect(OneShotReads.waitsForSample(readSeconds: 0.0037, rate: 952))
    }

    @Test func shortWaitsAreConfirmedLongOnesAreNot() {
        #expect(OneShotReads.needsConfirmation(readSeconds: 0.025))
        #expect(!OneShotReads.needsConfirmation(readSeconds: 2.0))
    }

    @Test func suchADeviceRunsAtItsHighestRate() {
        #expect(OneShotReads.rate(from: AvailableRates(parsing: "10 50 119 238 476 952")!) == 952)
        #expect(OneShotReads.rate(from: AvailableRates(parsing: "1 2 3 5 10 20 40 80")!) == 80)
        #expect(OneShotReads.rate(from: AvailableRates(parsing: "[1 1 200]")!) == 200)
    }
}
