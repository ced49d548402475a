import Foundation
import Glibc
import HeadsUpSystem
import HeadsUpTestSupport
import Testing

/// The real libiio local backend (and iiod) against an emulated kernel: a
/// fake sysfs tree and FIFO device nodes in a private mount namespace, fed
/// by a fake driver (Tests/Harness/iio). Known physical values must come out
/// of `headsup` in g / rad/s / µT after mount matrix and sign.
enum FakeKernel {
    static let script = TestEnvironment.path("Tests/Harness/iio/run_in_fake_kernel.sh")
    static var headsup: String { TestEnvironment.productsDirectory.appendingPathComponent("headsup").path }

    /// One emulated kernel at a time in this process: each is a Python FUSE
    /// server answering every sysfs read, and two of them (with the suites'
    /// own readers) on a loaded 2-core machine starve each other into
    /// 0.1 s holes that no real kernel would make.
    private static let oneAtATime = NSLock()

    /// Runs `command` (a bash script; $HEADSUP is the binary) inside the fake kernel.
    static func run(_ options: [String] = [], _ command: String) throws -> ProcessOutput {
        oneAtATime.lock()
        defer { oneAtATime.unlock() }
        var environment = ProcessInfo.processInfo.environment
        environment["HEADSUP"] = headsup
        let result = try runProcess("/bin/bash", [script] + options + ["--", "/bin/bash", "-c", command], environment: environment)
        if result.status == 77 {
            try requireCapability(false, "the fake IIO kernel cannot run here: \(result.standardError.split(separator: "\n").last ?? "")")
        }
        return result
    }

    static func samples(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    static func vector(_ sample: [String: Any], _ key: String) -> [Double] { (sample[key] as? [Double]) ?? [] }
}

@Suite("Sensors on an emulated IIO kernel", .serialized)
struct SensorsFakeKernelSystemTests {
    init() throws {
        try requireCapability(getuid() == 0, "needs root for mount namespaces (CI runs as root)")
    }

    /// bmi160: accel (0.5·sin(πt), 0, 9.80665) m/s², gyro (0.1, −0.2, 0.3·cos(πt)) rad/s, mount
    /// matrix [0 1 0; 1 0 0; 0 0 −1]; lis3mdl: (0.2, −0.1, 0.4) Gauss, matrix diag(−1, 1, −1).
    /// So in the model's CoreMotion convention: acc = −M·a/g = (0, −0.051·sin, +1) g,
    /// gyro = (−0.2, 0.1, −0.3·cos) rad/s, mag = (−20, −10, −40) µT.
    func checkKnownValues(_ samples: [[String: Any]]) {
        #expect(samples.count > 50)
        for sample in samples {
            let acc = FakeKernel.vector(sample, "acc")
            let gyro = FakeKernel.vector(sample, "gyro")
            let mag = FakeKernel.vector(sample, "mag")
            #expect(abs(acc[0]) < 1e-3)
            #expect(abs(acc[1]) <= 0.5 / 9.80665 + 1e-3)
            #expect(abs(acc[2] - 1) < 1e-3)
            #expect(abs(gyro[0] + 0.2) < 2e-3 && abs(gyro[1] - 0.1) < 2e-3 && abs(gyro[2]) <= 0.3 + 2e-3)
            #expect(abs(mag[0] + 20) < 0.05 && abs(mag[1] + 10) < 0.05 && abs(mag[2] + 40) < 0.05)
        }
        // acc y follows −0.5·sin(π t)/g at the sample's own time: the grid interpolates the right instants.
        for sample in samples.prefix(200) {
            let t = sample["time"] as! Double
            let expected = -0.5 * sin(Double.pi * t) / 9.80665
            #expect(abs(FakeKernel.vector(sample, "acc")[1] - expected) < 2e-3, "at \(t)")
        }
        let times = samples.map { $0["time"] as! Double }
        for (a, b) in zip(times, times.dropFirst()) { #expect(abs(b - a - 0.02) < 1e-6, "exact 50 Hz grid") }
    }

    @Test func discoveryFindsTheCombinedImuAndTheMagnetometer() throws {
        let result = try FakeKernel.run([], "$HEADSUP sensors list")
        #expect(result.status == 0, "\(result.standardError)")
        let out = result.standardOutput
        #expect(out.contains("bmi160 (iio:device0): accelerometer, gyroscope, buffered"))
        #expect(out.contains("lis3mdl (iio:device1): magnetometer, buffered, trigger lis3mdl-trigger"))
        #expect(out.contains("chosen 52 Hz"))
        #expect(out.contains("chosen 80 Hz"))
        #expect(out.contains("from in_mount_matrix"))
        #expect(out.contains("from in_magn_mount_matrix"))
    }

    @Test func bufferedReadingGivesKnownValuesAt50HzFromA52HzDevice() throws {
        let result = try FakeKernel.run([], "$HEADSUP sensors read --seconds 4 --json")
        #expect(result.status == 0, "\(result.standardError)")
        checkKnownValues(FakeKernel.samples(result.standardOutput))
        #expect(result.standardError.contains("0 lost by devices"), "\(result.standardError)")
    }

    @Test func aDeviceWithoutBufferIsPolled() throws {
        let list = try FakeKernel.run(["--scenario", "polled"], "$HEADSUP sensors list")
        #expect(list.standardOutput.contains("magnetometer, polled"), "\(list.standardOutput)")
        let result = try FakeKernel.run(["--scenario", "polled"], "$HEADSUP sensors read --seconds 4 --json")
        #expect(result.status == 0, "\(result.standardError)")
        let samples = FakeKernel.samples(result.standardOutput)
        #expect(samples.count > 50)
        for sample in samples { #expect(abs(FakeKernel.vector(sample, "acc")[2] - 1) < 1e-3) }
    }

    @Test func anUnpluggedDeviceIsReportedAndResumedWhenItReturns() throws {
        let result = try FakeKernel.run(["--unplug-at", "1.5", "--unplug-for", "2"], "$HEADSUP sensors read --seconds 8 --json")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.contains("sensor bmi160 lost"), "\(result.standardError)")
        #expect(result.standardError.contains("sensor bmi160 is back"), "\(result.standardError)")
        let times = FakeKernel.samples(result.standardOutput).map { $0["time"] as! Double }
        let gaps = zip(times, times.dropFirst()).filter { $1 - $0 > 0.5 }
        #expect(gaps.count == 1, "one outage, then streaming resumes")
        #expect((times.last ?? 0) - (gaps.first?.1 ?? .infinity) > 1, "samples after the device returned")
    }

    @Test func iiodServesTheSameDevicesOverTheNetwork() throws {
        let result = try FakeKernel.run(["--iiod"], "$HEADSUP sensors read --uri ip:127.0.0.1 --seconds 4 --json")
        #expect(result.status == 0, "\(result.standardError)")
        checkKnownValues(FakeKernel.samples(result.standardOutput))
    }

    @Test func aRecordingKilledWithSigkillLosesAtMostTheLastSecond() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("session.csv")
        let killTime = directory.path("killed-at")
        let result = try FakeKernel.run(
            [],
            """
            $HEADSUP record --label hands --out \(file) --duration 30 2>/dev/null &
            pid=$!
            sleep 4.5
            date +%s.%N > \(killTime)
            kill -9 $pid
            wait $pid
            exit 0
            """)
        #expect(result.status == 0, "\(result.standardError)")
        let killed = Double(try String(contentsOfFile: killTime, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines))!
        let rows = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(rows.last == "", "the file ends with a complete row")
        let data = rows.dropLast()
        #expect(data.count > 50)
        for row in data { #expect(row.split(separator: ",").count == 11 && row.hasPrefix("1,")) }
        let last = Double(data.last!.split(separator: ",")[1])!
        // Flushed and fsynced every second of data; samples reach the recorder a
        // refill (0.25 s) after they are taken.
        #expect(killed - last <= 1.5, "lost \(killed - last) s")
        let times = data.map { Double($0.split(separator: ",")[1])! }
        for (a, b) in zip(times, times.dropFirst()) { #expect(abs(b - a - 0.02) < 2e-6, "50 Hz rows, none missing") }
    }

    @Test func onATerminalTheLabelSwitchesWithAKeyWithoutStopping() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("session.csv")
        // script(1) gives the recorder a terminal; "h" arrives 4 s in.
        let command = "bash \(FakeKernel.script) -- \(FakeKernel.headsup) record --label pocket --out \(file) --duration 7"
        let result = try runProcess("/bin/bash", ["-c", "(sleep 4; printf h; sleep 6) | script -qfec '\(command)' /dev/null"])
        if result.standardOutput.contains("SKIP") { try requireCapability(false, "the fake IIO kernel cannot run here") }
        let labels = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map { $0.prefix(1) }
        let changes = zip(labels, labels.dropFirst()).filter { $0 != $1 }
        #expect(labels.first == "0" && labels.last == "1", "pocket, then hands after the key")
        #expect(changes.count == 1)
        #expect(labels.count > 250, "one recording, not stopped by the key")
        #expect(result.standardOutput.contains("label hands") && result.standardOutput.contains("Hz"), "the status line")
        #expect(result.standardOutput.contains("1 label changes"))
    }

    @Test func aCarryPositionIsLabelZeroWithItsPositionInTheSidecar() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("bag-1.csv")
        let result = try FakeKernel.run([], "$HEADSUP record --label bag --out \(file) --duration 3")
        #expect(result.status == 0, "\(result.standardError)")
        let rows = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(rows.count > 100)
        #expect(rows.allSatisfy { $0.hasPrefix("0,") }, "every carry position is label 0 in the CSV")
        let data = try Data(contentsOf: URL(fileURLWithPath: directory.path("bag-1.json")))
        let sidecar = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(sidecar["format"] as? String == "headsup-recording")
        #expect(sidecar["position"] as? String == "bag")
        #expect(sidecar["label"] as? Int == 0)
        #expect(sidecar["session"] as? String == "bag-1.csv")
        #expect(sidecar["samples"] as? Int == rows.count, "rewritten at the end with the rows on disk")
        #expect((sidecar["channels"] as? [String])?.count == 9, "the emulated kernel has all three sensors")
        #expect((sidecar["devices"] as? [Any])?.isEmpty == false)
        #expect(sidecar["sample_rate_hz"] as? Int == 50)
        let start = try #require(sidecar["start_time"] as? Double)
        #expect(abs(start - Double(rows[0].split(separator: ",")[1])!) < 1e-5, "the first row's time")
        #expect(result.standardError.contains("position bag in \(directory.path("bag-1.json"))"))
    }

    @Test func anExistingFileIsNeverOverwritten() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("session.csv", "1,1.0,0,0,0,0,0,0,0,0,0\n")
        let result = try FakeKernel.run([], "$HEADSUP record --label pocket --out \(file) --duration 1")
        #expect(result.status != 0)
        #expect(result.standardError.contains("already exists"))
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "1,1.0,0,0,0,0,0,0,0,0,0\n")
        #expect(!FileManager.default.fileExists(atPath: directory.path("session.json")), "no sidecar for a refused recording")
    }

    /// The kernel's realtime clock steps by +1 day, then −1 hour, as NTP does
    /// on a board without an RTC: HeadsUp asked for monotonic timestamps, so
    /// the stream, a recording and live scoring carry on without a gap.
    static let clockSteps = "sleep 2; echo 'clockstep 86400' > $FAKE_IIO_CONTROL; sleep 2; echo 'clockstep -3600' > $FAKE_IIO_CONTROL"

    @Test func aWallClockStepLeavesTheSampleStreamUnbroken() throws {
        let result = try FakeKernel.run([], "$HEADSUP sensors read --seconds 7 --json & \(Self.clockSteps); wait")
        #expect(result.status == 0, "\(result.standardError)")
        let times = FakeKernel.samples(result.standardOutput).map { $0["time"] as! Double }
        #expect(times.count > 250, "\(times.count) samples")
        for (a, b) in zip(times, times.dropFirst()) { #expect(abs(b - a - 0.02) < 1e-6, "a gap or a step between \(a) and \(b)") }
        #expect(result.standardError.contains("0 lost by devices"), "\(result.standardError)")
    }

    @Test func aRecordingStaysContinuousAcrossWallClockSteps() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path("session.csv")
        let result = try FakeKernel.run([], "$HEADSUP record --label hands --out \(file) --duration 7 & \(Self.clockSteps); wait")
        #expect(result.status == 0, "\(result.standardError)")
        let stamps = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").compactMap { Double($0.split(separator: ",")[1]) }
        #expect(stamps.count > 250)
        // Wall time, anchored once: near now, and 50 Hz throughout.
        #expect(abs(stamps[0] - Date().timeIntervalSince1970) < 60)
        for (a, b) in zip(stamps, stamps.dropFirst()) { #expect(abs(b - a - 0.02) < 1e-5, "\(a) → \(b)") }
    }

    @Test func liveScoringCarriesOnAcrossWallClockSteps() throws {
        // --hop 25 written out: the windows are counted at 0.5 s, whatever the card tunes.
        let result = try FakeKernel.run([], "$HEADSUP live --hop 25 --json --scores --no-desktop --seconds 8 & \(Self.clockSteps); wait")
        #expect(result.status == 0, "\(result.standardError)")
        let scored = FakeKernel.samples(result.standardOutput).filter { $0["event"] as? String == "score" }.compactMap { $0["t"] as? Double }
        #expect(scored.count >= 10, "\(result.standardOutput.prefix(500))")
        // Windows every 0.5 s (the hop), none skipped.
        for (a, b) in zip(scored, scored.dropFirst()) { #expect(abs(b - a - 0.5) < 0.011, "\(a) → \(b)") }
        #expect(result.standardError.contains("skipped 0"), "\(result.standardError)")
    }
}
