import Foundation
import Glibc
import HeadsUpTestSupport
import Testing

/// HeadsUp beside a fake iio-sensor-proxy in the emulated kernel, which
/// enforces the kernel's rules (one opener of /dev/iio:deviceN, raw reads
/// EBUSY while a buffer is on): polling shares the accelerometer at 50 Hz
/// without starving the proxy; a buffer the proxy holds makes the device
/// busy (said, not read as zeros) until the proxy lets go; and HeadsUp
/// never leaves a buffer on, even after kill -9.
@Suite("Sharing the sensors with iio-sensor-proxy", .serialized)
struct SensorSharingSystemTests {
    static let proxy = TestEnvironment.path("Tests/Harness/iio/fake_sensor_proxy.py")
    static let enable = "/sys/bus/iio/devices/iio:device0/buffer/enable"

    init() throws {
        try requireCapability(getuid() == 0, "needs root for mount namespaces (CI runs as root)")
    }

    /// Starts the fake proxy in the fake kernel and waits until it has claimed the sensor.
    static func startProxy(_ mode: String, stats: String) -> String {
        """
        /usr/bin/python3 \(proxy) --mode \(mode) --stats \(stats) --ready \(stats).ready &
        proxy=$!
        for i in $(seq 100); do [ -e \(stats).ready ] && break; sleep 0.05; done

        """
    }

    static func stats(_ path: String) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test func pollingBesideTheProxyKeeps50HzForAMinuteAndServesEveryProxyRead() throws {
        let directory = try TemporaryDirectory()
        let stats = directory.path("proxy.json")
        // The hop written out: the assertions below count windows at 0.5 s, whatever the card tunes.
        let config = try directory.write("poll.yaml", "sensors:\n  mode: poll\nwindowing:\n  hop: 25\n")
        let result = try FakeKernel.run(
            [],
            Self.startProxy("poll", stats: stats) + """
                $HEADSUP live --config \(config) --json --scores --no-desktop --seconds 60
                status=$?
                kill $proxy; wait $proxy
                exit $status
                """)
        #expect(result.status == 0, "\(result.standardError)")
        let summary = result.standardError
        let samples = try #require(Int(summary.firstMatch(of: /samples (\d+)/)?.1 ?? ""), "\(summary)")
        #expect(Double(samples) >= 49.5 * 60, "\(samples) samples in 60 s")
        #expect(summary.contains("dropped by alignment 0"), "\(summary)")
        #expect(summary.contains("skipped 0"), "\(summary)")
        // A window every 0.5 s, none missing: no gap in the 50 Hz stream longer than the
        // resampler's 0.1 s (a longer one would break a window and skip it).
        let scored = FakeKernel.samples(result.standardOutput).filter { $0["event"] as? String == "score" }.compactMap { $0["t"] as? Double }
        #expect(scored.count >= 115, "\(scored.count) windows")
        for (a, b) in zip(scored, scored.dropFirst()) { #expect(abs(b - a - 0.5) < 0.011, "\(a) → \(b)") }
        let proxy = try Self.stats(stats)
        let cycles = try #require(proxy["cycles"] as? Int)
        #expect(cycles >= 80, "\(proxy)")
        #expect(proxy["reads_served"] as? Int == cycles, "every proxy read served: \(proxy)")
        #expect((proxy["refused"] as? [String: Any])?.isEmpty == true, "\(proxy)")
    }

    @Test func sensorsListSaysWhichPathAndWhy() throws {
        let directory = try TemporaryDirectory()
        let poll = try FakeKernel.run([], "$HEADSUP sensors list --mode poll")
        #expect(poll.status == 0, "\(poll.standardError)")
        #expect(poll.standardOutput.contains("bmi160 (iio:device0): accelerometer, gyroscope, polled"), "\(poll.standardOutput)")
        #expect(poll.standardOutput.contains("read: polled, because sensors.mode is poll"), "\(poll.standardOutput)")
        let buffer = try FakeKernel.run([], "DBUS_SYSTEM_BUS_ADDRESS=unix:path=\(directory.path("none")) $HEADSUP sensors list")
        #expect(buffer.standardOutput.contains("read: buffered, because sensors.mode is auto and no iio-sensor-proxy is in sight"))
    }

    @Test func autoPollsWhereTheProxysNameIsOnTheSystemBus() throws {
        if let reason = PrivateDBus.unavailableReason { try requireCapability(false, reason) }
        let bus = try PrivateDBus()
        let owner = try BackgroundProcess(
            PrivateDBus.python,
            [
                "-c",
                "import dbus, time; b = dbus.bus.BusConnection('\(bus.address)'); b.request_name('net.hadess.SensorProxy'); print('owned', flush=True); time.sleep(60)",
            ], environment: bus.environment)
        defer { owner.killAbruptly() }
        #expect(owner.wait(for: "owned", timeout: 10), "\(owner.standardError)")
        let result = try FakeKernel.run([], "DBUS_SYSTEM_BUS_ADDRESS='\(bus.address)' $HEADSUP sensors list")
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("accelerometer, gyroscope, polled"), "\(result.standardOutput)")
        #expect(result.standardOutput.contains("net.hadess.SensorProxy is taken on the system bus"), "\(result.standardOutput)")
    }

    @Test func aBufferTheProxyHoldsIsBusyUntilItLetsGoAndIsNeverTurnedOff() throws {
        let directory = try TemporaryDirectory()
        let stats = directory.path("proxy.json")
        // The hop written out: the bounds below count windows at 0.5 s, whatever the card tunes.
        let config = try directory.write("buffer.yaml", "sensors:\n  mode: buffer\nwindowing:\n  hop: 25\n")
        let result = try FakeKernel.run(
            [],
            Self.startProxy("buffer", stats: stats) + """
                $HEADSUP live --config \(config) --json --scores --no-desktop --seconds 14 &
                live=$!
                sleep 5
                echo "enable-while-busy $(cat \(Self.enable))"
                kill -USR1 $proxy
                wait $live
                status=$?
                echo "enable-after-exit $(cat \(Self.enable))"
                kill $proxy; wait $proxy
                exit $status
                """)
        #expect(result.status == 0, "\(result.standardError)")
        let err = result.standardError
        #expect(err.contains("sensor bmi160 busy:"), "\(err)")
        #expect(err.contains("buffer/enable is 1"), "says what blocks it: \(err)")
        #expect(err.components(separatedBy: "sensor bmi160 busy:").count == 2, "said once: \(err)")
        #expect(err.contains("sensor bmi160 is back"), "\(err)")
        #expect(result.standardOutput.contains("enable-while-busy 1"), "the proxy's buffer stayed on")
        #expect(result.standardOutput.contains("enable-after-exit 0"), "HeadsUp turned its own buffer off")
        let proxy = try Self.stats(stats)
        #expect((proxy["refused"] as? [String: Any])?.isEmpty == true, "the proxy was never refused while it held the buffer: \(proxy)")
        // Scores only once the device was free: none from zeros while busy.
        let scored = FakeKernel.samples(result.standardOutput).filter { $0["event"] as? String == "score" }
        #expect(scored.count >= 8, "scoring after the proxy let go: \(scored.count)")
        #expect(scored.count <= 20, "no scores while busy: \(scored.count)")
    }

    /// A phone without the package's udev rule: the proxy's buffer makes every raw read EBUSY.
    @Test func pollingWhileTheProxyHoldsTheBufferIsBusyWithoutZeros() throws {
        let directory = try TemporaryDirectory()
        let stats = directory.path("proxy.json")
        let result = try FakeKernel.run(
            [],
            Self.startProxy("buffer", stats: stats) + """
                $HEADSUP sensors read --mode poll --seconds 8 --json &
                reader=$!
                sleep 3
                kill -USR1 $proxy
                wait $reader
                status=$?
                kill $proxy; wait $proxy
                exit $status
                """)
        #expect(result.status == 0, "\(result.standardError)")
        let err = result.standardError
        #expect(err.components(separatedBy: "sensor bmi160 busy:").count == 2, "said once: \(err)")
        #expect(err.contains("Device or resource busy") || err.contains("busy: another program"), "\(err)")
        #expect(err.contains("sensor bmi160 is back"), "\(err)")
        let samples = FakeKernel.samples(result.standardOutput)
        #expect(samples.count > 100, "samples once the proxy let go: \(samples.count)")
        #expect(samples.count < 300, "none while busy: \(samples.count)")
        for sample in samples { #expect(abs(FakeKernel.vector(sample, "acc")[2] - 1) < 1e-3, "never zeros") }
        let proxy = try Self.stats(stats)
        #expect((proxy["refused"] as? [String: Any])?.isEmpty == true, "\(proxy)")
    }

    @Test func afterKill9TheNextStartTurnsOffItsOwnBufferOnly() throws {
        let result = try FakeKernel.run(
            [],
            """
            $HEADSUP sensors read --mode buffer --seconds 30 > /dev/null 2>&1 &
            pid=$!
            sleep 3
            kill -9 $pid; wait $pid
            echo "enable-after-kill $(cat \(Self.enable))"
            ls $RUNTIME_DIRECTORY
            $HEADSUP sensors read --mode buffer --seconds 2 --json > $RUNTIME_DIRECTORY/samples.json
            echo "samples $(wc -l < $RUNTIME_DIRECTORY/samples.json)"
            echo "enable-after-exit $(cat \(Self.enable))"
            """)
        #expect(result.status == 0, "\(result.standardError)")
        let out = result.standardOutput
        #expect(out.contains("enable-after-kill 1"), "kill -9 leaves the buffer on: \(out)")
        #expect(out.contains("iio-buffer-iio_device0"), "the record: \(out)")
        #expect(result.standardError.contains("turned off a buffer a HeadsUp that ended without turning it off"), "\(result.standardError)")
        let samples = Int(out.firstMatch(of: /samples (\d+)/)?.1 ?? "") ?? 0
        #expect(samples > 50, "\(out)")
        #expect(out.contains("enable-after-exit 0"), "\(out)")
    }

    /// The installed unit's directives that decide what survives an automatic restart.
    static func unitDirectives() throws -> [String: String] {
        let unit = try String(contentsOfFile: TestEnvironment.path("dist/systemd/headsup.service.in"), encoding: .utf8)
        var directives: [String: String] = [:]
        for line in unit.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { directives[parts[0]] = parts[1] }
        }
        return directives
    }

    /// The live job killed with SIGKILL, then what systemd does to its
    /// directories before Restart=on-failure starts it again, as the unit's
    /// directives say (no systemd runs as PID 1 here): it removes the
    /// RuntimeDirectory= unless RuntimeDirectoryPreserve= keeps it on a
    /// restart. The restarted job must find its record and take its
    /// buffer back; without the record the buffer stayed on and the
    /// sensor busy until reboot.
    @Test func theRestartAfterKill9TakesItsBufferBack() throws {
        let directives = try Self.unitDirectives()
        #expect(directives["Restart"] == "on-failure")
        #expect(directives["RuntimeDirectory"] == "headsup", "the records live in the runtime directory")
        let kept = ["yes", "restart"].contains(directives["RuntimeDirectoryPreserve"] ?? "no")
        // systemd itself reads the directives as they are read here (a misspelt one would be ignored).
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let scratch = try TemporaryDirectory()
            let unit = try String(contentsOfFile: TestEnvironment.path("dist/systemd/headsup.service.in"), encoding: .utf8)
            let installed = try scratch.write(
                "headsup.service", unit.replacingOccurrences(of: "@BINDIR@", with: TestEnvironment.productsDirectory.path))
            let verified = try runProcess("/usr/bin/systemd-analyze", ["verify", installed])
            #expect(!verified.standardError.contains("Unknown"), "\(verified.standardError)")
        }
        let directory = try TemporaryDirectory()
        let config = try directory.write("buffer.yaml", "sensors:\n  mode: buffer\n")
        let result = try FakeKernel.run(
            [],
            """
            $HEADSUP live --config \(config) --json --no-desktop --seconds 60 > /dev/null 2>&1 &
            pid=$!
            sleep 3
            kill -9 $pid; wait $pid
            echo "records-after-kill $(ls $RUNTIME_DIRECTORY | grep -c iio-buffer)"
            \(kept ? "" : "rm -rf $RUNTIME_DIRECTORY; mkdir -m 0750 $RUNTIME_DIRECTORY  # systemd: the stop before the restart")
            $HEADSUP live --config \(config) --json --scores --no-desktop --seconds 4 > $RUNTIME_DIRECTORY/restarted.json 2> $RUNTIME_DIRECTORY/restarted.log
            echo "scores $(grep -c '"event":"score"' $RUNTIME_DIRECTORY/restarted.json)"
            cat $RUNTIME_DIRECTORY/restarted.log >&2
            echo "enable-after-exit $(cat \(Self.enable))"
            """)
        #expect(result.status == 0, "\(result.standardError)")
        let out = result.standardOutput
        let records = Int(out.firstMatch(of: /records-after-kill (\d+)/)?.1 ?? "") ?? 0
        #expect(records >= 1, "kill -9 leaves the records: \(out)")
        #expect(kept, "RuntimeDirectoryPreserve=restart (or yes) keeps the records across the restart")
        #expect(result.standardError.contains("turned off a buffer a HeadsUp that ended without turning it off"), "\(result.standardError)")
        let scores = Int(out.firstMatch(of: /scores (\d+)/)?.1 ?? "") ?? 0
        #expect(scores >= 4, "the restarted job scores: \(out)")
        #expect(out.contains("enable-after-exit 0"), "\(out)")
    }

    @Test func aNormalExitAndSigtermLeaveNoBufferOn() throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write("buffer.yaml", "sensors:\n  mode: buffer\n")
        let result = try FakeKernel.run(
            [],
            """
            $HEADSUP sensors read --mode buffer --seconds 2 > /dev/null
            echo "after-read $(cat \(Self.enable)) $(ls $RUNTIME_DIRECTORY | grep -c iio-buffer)"
            $HEADSUP live --config \(config) --json --no-desktop --seconds 60 > /dev/null 2>&1 &
            pid=$!
            sleep 3
            echo "while-live $(cat \(Self.enable))"
            kill -TERM $pid; wait $pid
            echo "after-term $(cat \(Self.enable)) $(ls $RUNTIME_DIRECTORY | grep -c iio-buffer)"
            """)
        #expect(result.status == 0, "\(result.standardError)")
        let out = result.standardOutput
        #expect(out.contains("after-read 0 0"), "\(out)")
        #expect(out.contains("while-live 1"), "\(out)")
        #expect(out.contains("after-term 0 0"), "\(out)")
    }
}
