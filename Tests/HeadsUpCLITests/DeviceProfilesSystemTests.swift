import Foundation
import Glibc
import HeadsUpTestSupport
import Testing

/// Real phones and boards as their mainline drivers show them
/// (Tests/Harness/iio/profiles.py), each run end to end through the real
/// libiio on the emulated kernel: `sensors list` says what HeadsUp reads and
/// how, `record` writes 50 Hz rows whose values are the profile's known
/// physical signals in the training convention, and `live` scores windows.
@Suite("Phones and boards on the emulated kernel", .serialized)
struct DeviceProfilesSystemTests {
    init() throws {
        try requireCapability(getuid() == 0, "needs root for mount namespaces (CI runs as root)")
    }

    /// What `sensors list` must say for each profile: the spec of how each device is read.
    static let expectedListing: [String: [String]] = [
        "pinephone": [
            "mpu6050 (iio:device0): accelerometer, gyroscope, buffered, trigger mpu6050-dev0", "chosen 50 Hz",
            "lis3mdl (iio:device1): magnetometer, polled", "needs a trigger", "chosen 80 Hz", "waits for a fresh sample",
        ],
        "pinephone_pro": [
            "mpu6500 (iio:device0): accelerometer, gyroscope, buffered, trigger mpu6500-dev0", "chosen 50 Hz", "no magnetometer: the model's",
        ],
        "librem5": [
            "lsm9ds1-imu_accel (iio:device0): accelerometer, polled", "lsm9ds1-imu_gyro (iio:device1): gyroscope, polled",
            "needs a trigger", "chosen 952 Hz", "waits for a fresh sample",
            "lsm9ds1_magn (iio:device2): magnetometer, buffered, trigger lsm9ds1_magn-trigger", "chosen 80 Hz",
        ],
        "rpi_mpu9250": ["mpu9250 (iio:device0): accelerometer, gyroscope, magnetometer, buffered", "chosen 50 Hz"],
        "sense_hat": [
            "lsm9ds1-imu_accel (iio:device0): accelerometer, polled", "lsm9ds1-imu_gyro (iio:device1): gyroscope, polled",
            "lsm9ds1_magn (iio:device2): magnetometer, polled", "needs a trigger", "chosen 952 Hz", "waits for a fresh sample",
        ],
    ]

    /// A session row's nine value columns, after the label and the time.
    static let columns = ["acc_x", "acc_y", "acc_z", "gyro_x", "gyro_y", "gyro_z", "mag_x", "mag_y", "mag_z"]
    static let recordSeconds = 6.0
    static let liveSeconds = 12.0

    @Test(arguments: ["pinephone", "pinephone_pro", "librem5", "rpi_mpu9250", "sense_hat"])
    func aProfileIsListedRecordedAndScored(profile: String) throws {
        let truth = try ProfileTruth(scenario: profile)
        let directory = try TemporaryDirectory()
        let session = directory.path("session.csv")
        let result = try FakeKernel.run(
            ["--scenario", profile],
            """
            set -e
            $HEADSUP sensors list > \(directory.path("list.txt"))
            $HEADSUP record --label hands --out \(session) --duration \(Self.recordSeconds) 2> \(directory.path("record.txt"))
            $HEADSUP live --json --scores --no-desktop --seconds \(Self.liveSeconds) --model \(TestEnvironment.path("weights/model.h5")) \
                > \(directory.path("live.jsonl")) 2> \(directory.path("live.txt"))
            """)
        func file(_ name: String) -> String { (try? String(contentsOfFile: directory.path(name), encoding: .utf8)) ?? "(no \(name))" }
        #expect(result.status == 0, "\(profile): \(result.standardError)\n\(file("record.txt"))\n\(file("live.txt"))")

        let listing = file("list.txt")
        for line in Self.expectedListing[profile]! { #expect(listing.contains(line), "\(profile): '\(line)' in\n\(listing)") }

        // 50 Hz rows of the known values, in g, rad/s and µT with CoreMotion's signs.
        let rows = file("session.csv").split(separator: "\n").map { $0.split(separator: ",").compactMap { Double($0) } }
        // The last hand-over of a slow device's readings (0.24 s, plus a one-shot read of up to 75 ms)
        // may still be on its way when the recording stops: the rows may end that much early.
        #expect(Double(rows.count) >= (Self.recordSeconds - 0.6) * 50, "\(profile): \(rows.count) rows\n\(file("record.txt"))")
        for (previous, row) in zip(rows, rows.dropFirst()) {
            #expect(abs(row[1] - previous[1] - 0.02) < 1e-6, "\(profile): the 50 Hz grid at \(row[1])")
        }
        let offset = ProfileTruth.wallClockOffset
        var worst: [String: Double] = [:]
        for row in rows where row.count == 11 {
            for (column, expected) in truth.expectedRow(at: row[1], wallClockOffset: offset).enumerated() {
                let miss = abs(row[2 + column] - expected.value) - expected.tolerance
                let name = Self.columns[column]
                worst[name] = max(worst[name] ?? -.infinity, miss)
            }
        }
        for (name, miss) in worst.sorted(by: { $0.key < $1.key }) { #expect(miss <= 0, "\(profile): \(name) off by \(miss) beyond tolerance") }

        // live scores a window every hop once the first second is in.
        let scores = file("live.jsonl").split(separator: "\n").filter { $0.contains("\"event\":\"score\"") }
        #expect(Double(scores.count) >= (Self.liveSeconds - 2) * 2, "\(profile): \(scores.count) scores\n\(file("live.txt"))")
    }

    /// A Sense HAT with only its own overlay shows the magnetometer alone:
    /// HeadsUp says what to load instead of only that the accelerometer is missing.
    @Test func aSenseHatWithItsOwnOverlayIsToldWhichOverlayToLoad() throws {
        let result = try FakeKernel.run(["--scenario", "sense_hat_stock"], "$HEADSUP sensors list")
        #expect(result.status != 0)
        #expect(result.standardError.contains("no IIO device provides accelerometer, gyroscope"), "\(result.standardError)")
        #expect(result.standardError.contains("Sense HAT"), "\(result.standardError)")
        #expect(result.standardError.contains("\"st,lsm9ds1-imu\""), "\(result.standardError)")
    }
}

/// A profile's truth (Tests/Harness/iio/truth.json): each sensor's signals,
/// mount matrix and scale, turned into what a 50 Hz row must hold.
struct ProfileTruth {
    struct Signal {
        var kind: String
        var constant, amplitude, frequency: Double

        func callAsFunction(_ t: Double) -> Double {
            guard kind != "const" else { return constant }
            let phase = 2 * Double.pi * frequency * t
            return constant + amplitude * (kind == "sin" ? sin(phase) : cos(phase))
        }
        /// The steepest the signal gets, per second.
        var slope: Double { kind == "const" ? 0 : abs(amplitude) * 2 * Double.pi * frequency }
    }

    struct Sensor {
        var signals: [Signal]
        var matrix: [[Double]]
        var scale: Double
        /// Buffered samples carry the clock HeadsUp asks the driver for
        /// (monotonic); polled reads are the signal at the wall-clock time.
        var buffered: Bool
    }

    var sensors: [String: Sensor] = [:]
    var gravity: Double

    init(scenario: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.path("Tests/Harness/iio/truth.json")))
        let all = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let truth = (all["scenarios"] as! [String: Any])[scenario] as! [String: Any]
        gravity = truth["standard_gravity"] as! Double
        for device in truth["devices"] as! [[String: Any]] {
            let channels = device["channels"] as! [[String: Any]]
            let matrices = device["mount_matrices"] as! [[String: Any]]
            for type in ["accel", "anglvel", "magn"] {
                let axes = ["x", "y", "z"].compactMap { axis in channels.first { $0["type"] as? String == type && $0["axis"] as? String == axis } }
                guard axes.count == 3 else { continue }
                let signals = axes.map { channel in
                    let signal = channel["signal"] as! [String: Any]
                    return Signal(
                        kind: signal["kind"] as! String, constant: signal["constant"] as! Double, amplitude: signal["amplitude"] as! Double,
                        frequency: signal["frequency_hz"] as! Double)
                }
                let matrix = matrices.first { ($0["applies_to"] as! [String]).contains(type) }?["rows"] as? [[Double]]
                sensors[type] = Sensor(
                    signals: signals, matrix: matrix ?? [[1, 0, 0], [0, 1, 0], [0, 0, 1]], scale: axes.map { $0["scale"] as! Double }.max()!,
                    buffered: device["buffered"] as! Bool && !(device["needs_trigger"] as! Bool))
            }
        }
    }

    /// Wall-clock seconds minus monotonic seconds, now.
    static var wallClockOffset: Double {
        var wall = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return Double(wall.tv_sec - monotonic.tv_sec) + Double(wall.tv_nsec - monotonic.tv_nsec) * 1e-9
    }

    /// The nine values of a row at wall-clock time `wall` and how far each
    /// may be: a step of the ADC through the matrix, plus what the signal
    /// moves in 30 ms (a polled reading is stamped at its tick, not at its read).
    func expectedRow(at wall: Double, wallClockOffset: Double) -> [(value: Double, tolerance: Double)] {
        var row: [(Double, Double)] = []
        for (type, factor) in [("accel", -1 / gravity), ("anglvel", 1.0), ("magn", 100.0)] {
            guard let sensor = sensors[type] else {
                row += Array(repeating: (0, 1e-9), count: 3)  // no such sensor: HeadsUp writes zeros
                continue
            }
            let t = sensor.buffered ? wall - wallClockOffset : wall
            for m in sensor.matrix {
                let value = zip(m, sensor.signals).map { $0 * $1(t) }.reduce(0, +) * factor
                let weight = m.map(abs).reduce(0, +)
                let slope = zip(m, sensor.signals).map { abs($0) * $1.slope }.reduce(0, +)
                row.append((value, (weight * sensor.scale / 2 + slope * 0.03) * abs(factor) + 1e-6))
            }
        }
        return row
    }
}
