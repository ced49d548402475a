import Foundation
import Glibc
import HeadsUpTestSupport
import Testing

/// `headsup beacons watch` in a crowded street: Tests/Harness/bluez_crowd.py
/// adds hundreds of phones, earbuds, watches and other venues' beacons to
/// the BlueZ mock, advertising at 300 a second with rotating addresses, on
/// a private dbus-daemon. The short versions of issue 22's targets (the
/// benchmark is tools/bench/beacons_crowd.py).
@Suite("headsup beacons watch in a crowd", .serialized)
struct BeaconsCrowdSystemTests {
    /// The walk-by's advertisement interval: enter and exit may move by less than this.
    let interval = 0.2

    init() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
    }

    /// A bluez_scenario.py step running bluez_crowd.py beside the other steps.
    static func crowd(devices: Int, rate: Int, rotate: Double = 0) -> String {
        "{\"at\": 0, \"do\": \"crowd\", \"devices\": \(devices), \"rate\": \(rate), \"rotate\": \(rotate), \"seed\": 7}"
    }

    /// BeaconsBlueZSystemTests' walk-by: -90 → -60 in 5 dB steps every 0.2 s, jitter at the top, back down.
    static var walkBy: [String] {
        var steps = [device(0.2, rssi: -90)]
        var rssi = -85
        var t = 0.4
        while rssi <= -60 {
            steps.append(advertise(t, rssi: rssi))
            rssi += 5
            t += 0.2
        }
        for level in [-62, -58, -61, -59, -63, -66, -72, -78, -84, -90] {
            steps.append(advertise(t, rssi: level))
            t += 0.2
        }
        return steps
    }

    /// Enter after the first -70 (step at 1.0 s) and exit after the first reading below -80 (step at 3.2 s).
    func offsets(_ run: BlueZScenario) throws -> (enter: Double, exit: Double) {
        let enter = try #require(run.monotonic(ofEvent: "enter"), "\(run.events)\n\(run.log)")
        let exit = try #require(run.monotonic(ofEvent: "exit"), "\(run.events)\n\(run.log)")
        return (enter - (try #require(run.monotonic(ofStepAt: 1.0))), exit - (try #require(run.monotonic(ofStepAt: 3.2))))
    }

    @Test func aWalkByInACrowdEntersAndExitsWhenItDoesAlone() throws {
        let alone = try BlueZScenario.run(Self.walkBy, seconds: 5)
        let crowded = try BlueZScenario.run(Self.walkBy + [Self.crowd(devices: 400, rate: 300, rotate: 20)], seconds: 5)
        #expect(alone.regionEvents == ["enter", "exit:weak-signal"], "\(alone.events)\n\(alone.log)")
        #expect(crowded.regionEvents == ["enter", "exit:weak-signal"], "\(crowded.events)\n\(crowded.log)")
        let quiet = try offsets(alone)
        let busy = try offsets(crowded)
        #expect(abs(busy.enter - quiet.enter) < interval, "enter \(busy.enter) s after -70 in the crowd, \(quiet.enter) s alone")
        #expect(abs(busy.exit - quiet.exit) < interval, "exit \(busy.exit) s after -84 in the crowd, \(quiet.exit) s alone")
        // The crowd was there and kept its rate, and HeadsUp saw it and set it aside.
        let totals = try #require(crowded.steps.first { $0["crowd"] != nil }?["crowd"] as? [String: Any], "\(crowded.steps)")
        #expect((totals["rate"] as? Double ?? 0) > 270, "\(totals)")
        #expect(totals["errors"] as? Int == 0, "\(totals)")
        let counters = try #require(Self.counters(crowded.log), "\(crowded.log)")
        #expect(counters["without a beacon frame"] ?? 0 > 500, "\(counters)")
        #expect(counters["of beacons in no region"] ?? 0 > 200, "\(counters)")
    }

    @Test func rotatingAddressesAreForgottenAndMemoryStaysBounded() throws {
        // 200 devices at a time, each address living about a second: some 2,000 addresses in 10 s.
        let bus = try PrivateDBus()
        let crowd = try BackgroundProcess(
            PrivateDBus.python,
            [
                TestEnvironment.path("Tests/Harness/bluez_crowd.py"), "--start-mock", "--wait", "--devices", "200", "--rate", "300",
                "--rotate", "1", "--seconds", "12", "--seed", "3",
            ],
            environment: bus.environment)
        defer { crowd.finish(timeout: 0) }
        guard crowd.wait(for: "READY", timeout: 20) else {
            throw CapabilityMissing(reason: "the crowd did not start: \(crowd.standardError)")
        }
        let watch = try MeasuredProcess(
            TestEnvironment.productsDirectory.appendingPathComponent("headsup").path,
            ["beacons", "watch", "--region", BlueZScenario.region, "--json", "--seconds", "11", "--exit-timeout", "1"],
            environment: bus.environment)
        #expect(watch.wait(for: "discovering on", timeout: 10), "\(watch.standardError)")
        crowd.send("go")
        var samples: [(time: Double, megabytes: Double)] = []
        let start = Date()
        while watch.isRunning {
            if let rss = watch.residentMegabytes { samples.append((Date().timeIntervalSince(start), rss)) }
            usleep(200_000)
        }
        crowd.finish(timeout: 15)
        let counters = try #require(Self.counters(watch.standardError), "\(watch.standardError)")
        let totals = try #require(
            BlueZScenario.jsonLines(crowd.standardOutput).first { $0["crowd"] != nil }?["crowd"] as? [String: Any], "\(crowd.standardOutput)")
        let addresses = totals["addresses"] as? Int ?? 0
        #expect(addresses > 1500, "\(totals)")
        // Silent addresses leave the table; what it holds is the devices advertising now and the last second's silent ones.
        #expect(counters["silent devices forgotten"] ?? 0 > 300, "\(counters)\n\(totals)")
        #expect(counters["known"] ?? .max < 600, "\(counters): the table grows with the addresses seen (\(addresses))")
        // RSS: after the first seconds (the table at its steady size), it moves by less than 3 MB while the addresses keep coming.
        let settled = samples.filter { $0.time >= 3 }.map(\.megabytes)
        let reference = try #require(settled.first, "no RSS samples: \(samples)")
        let largest = settled.max() ?? reference
        #expect(largest - reference < 3, "RSS \(samples.map { String(format: "%.1f", $0.megabytes) }) MB; \(counters)")
    }

    /// The numbers of `beacons watch`'s exit line ("beacons: 931 advertisements, 1703 without a beacon frame, …"), by their words.
    static func counters(_ log: String) -> [String: Int]? {
        guard let line = log.split(separator: "\n").last(where: { $0.hasPrefix("beacons: ") }) else { return nil }
        var result: [String: Int] = [:]
        for part in line.dropFirst("beacons: ".count).split(separator: ",") {
            let words = part.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
            if words.count == 2, let value = Int(words[0]) { result[String(words[1])] = value }
        }
        return result
    }
}

/// A program whose memory the test reads from /proc while it runs; output to files.
final class MeasuredProcess {
    private let process = Process()
    private let directory: TemporaryDirectory

    init(_ executable: String, _ arguments: [String], environment: [String: String]) throws {
        directory = try TemporaryDirectory()
        for name in ["stdout", "stderr"] { _ = FileManager.default.createFile(atPath: directory.path(name), contents: nil) }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: directory.path("stdout"))
        process.standardError = FileHandle(forWritingAtPath: directory.path("stderr"))
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    var isRunning: Bool { process.isRunning }
    var standardError: String { (try? String(contentsOfFile: directory.path("stderr"), encoding: .utf8)) ?? "" }

    /// VmRSS from /proc/PID/status, in MB (nil once the process is gone).
    var residentMegabytes: Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap({ Double($0) })
        else { return nil }
        return kilobytes / 1024
    }

    func wait(for text: String, timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if standardError.contains(text) { return true }
            usleep(20_000)
        }
        return false
    }
}
