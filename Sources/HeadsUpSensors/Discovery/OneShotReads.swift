/// Polled drivers that wait for a fresh sample on every `_raw` read.
///
/// st_lsm6dsx (the Librem 5's and Sense HAT's LSM9DS1) powers the sensor up
/// for each read and sleeps 3–4 output periods before it reads the register
/// (`st_lsm6dsx_read_oneshot`); the st_sensors magnetometers sleep two
/// (`st_sensors_read_info_raw`). At 50 Hz that is 60–80 ms per axis, so three
/// axes come at about 5 Hz; at the device's highest rate (952 Hz) a read
/// takes about 4 ms and the axes fit in one 20 ms tick. Whether a driver
/// does this is measured, not looked up by name: one read that lasts at least
/// a whole output period is a wait for the sample. Pure logic.
public enum OneShotReads {
    /// Reads faster than this are never a wait (a sysfs read takes tens of
    /// microseconds; a loaded machine may add a millisecond or two).
    public static let shortestWait = 0.002

    /// True when a `_raw` read lasting `readSeconds` at `rate` Hz waited for a sample.
    public static func waitsForSample(readSeconds: Double, rate: Double) -> Bool {
        readSeconds >= shortestWait && readSeconds * rate >= 1
    }

    /// A wait this short is confirmed by a second read before it is
    /// believed (a loaded machine can stall one read for a period at the
    /// highest rates, not for a tenth of a second).
    public static func needsConfirmation(readSeconds: Double) -> Bool { readSeconds < 0.1 }

    /// The rate to poll such a device at: its highest, where the wait is shortest.
    public static func rate(from available: AvailableRates) -> Double {
        available.highest
    }
}
