import Foundation
import HeadsUpTestSupport
import Testing

/// `headsup beacons watch` against python-dbusmock playing bluetoothd on a
/// private dbus-daemon: real sd-bus, real D-Bus messages, no Bluetooth hardware.
struct BlueZScenario {
    var events: [[String: Any]] = []
    var steps: [[String: Any]] = []
    var calls: [[String: Any]] = []
    var log = ""

    static let uuid = "b9407f30-f5f8-466e-aff9-25556b57fe6d"
    static let region = "crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D:1"
    /// Raw RSSI, sharp thresholds and short timeouts, so timing is exact.
    static let sharpOptions = ["--enter-rssi=-70", "--exit-rssi=-80", "--dwell", "0.5", "--exit-timeout", "2", "--filter", "arma:1"]

    /// Runs `steps` (scenario JSON step objects) against a watch lasting `seconds`.
    static func run(
        _ steps: [String], seconds: Double, options: [String] = sharpOptions, waitFor ready: String = "discovering on", scan: Bool = false
    ) throws -> BlueZScenario {
        let bus = try PrivateDBus()
        let directory = try TemporaryDirectory()
        // A powered adapter exists from the start unless the scenario sets one up itself.
        let adapter = steps.first?.contains("\"adapter\"") == true ? [] : ["{\"at\": 0, \"do\": \"adapter\", \"powered\": true}"]
        let all = adapter + steps + ["{\"at\": \(seconds + 1), \"do\": \"noop\"}"]
        let file = try directory.write("scenario.json", "{\"steps\": [\n" + all.joined(separator: ",\n") + "\n]}")
        let harness = TestEnvironment.path("Tests/Harness/bluez_scenario.py")
        let mock = try BackgroundProcess(PrivateDBus.python, [harness, file], environment: bus.environment)
        guard mock.wait(for: "READY", timeout: 15) else {
            throw CapabilityMissing(reason: "the BlueZ mock did not start: \(mock.standardError)")
        }
        let command =
            scan
            ? ["beacons", "scan", "--json", "--seconds", String(seconds)]
            : ["beacons", "watch", "--region", region, "--json", "--seconds", String(seconds)]
        let watch = try BackgroundProcess(
            TestEnvironment.productsDirectory.appendingPathComponent("headsup").path, command + options, environment: bus.environment)
        #expect(watch.wait(for: ready, timeout: 10), "watch never logged '\(ready)': \(watch.standardError)")
        mock.send("go")
        watch.finish(timeout: seconds + 10)
        mock.finish(timeout: 15)
        var result = BlueZScenario()
        result.log = watch.standardError + "\n--- mock stderr:\n" + mock.standardError
        result.events = jsonLines(watch.standardOutput)
        for line in jsonLines(mock.standardOutput) {
            if let calls = line["calls"] as? [[String: Any]] { result.calls = calls } else { result.steps.append(line) }
        }
        return result
    }

    static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    /// Region events only, as "enter"/"exit:reason".
    var regionEvents: [String] {
        events.compactMap { event in
            switch event["event"] as? String {
            case "enter": "enter"
            case "exit": "exit:\(event["reason"] as? String ?? "?")"
            default: nil
            }
        }
    }

    func monotonic(ofEvent kind: String, _ occurrence: Int = 0) -> Double? {
        events.filter { $0["event"] as? String == kind }.dropFirst(occurrence).first?["monotonic"] as? Double
    }

    /// When the scenario step scheduled `at` seconds ran.
    func monotonic(ofStepAt at: Double) -> Double? {
        steps.first { ($0["at"] as? Double).map { abs($0 - at) < 1e-9 } ?? false }?["monotonic"] as? Double
    }
}

func device(_ at: Double, rssi: Int, id: String = "b", minor: Int = 2) -> String {
    "{\"at\": \(at), \"do\": \"device\", \"id\": \"\(id)\", \"ibeacon\": [\"\(BlueZScenario.uuid)\", 1, \(minor), -59], \"rssi\": \(rssi)}"
}

func advertise(_ at: Double, rssi: Int, id: String = "b") -> String {
    "{\"at\": \(at), \"do\": \"rssi\", \"id\": \"\(id)\", \"rssi\": \(rssi)}"
}

func step(_ at: Double, _ action: String, id: String = "b") -> String {
    "{\"at\": \(at), \"do\": \"\(action)\", \"id\": \"\(id)\"}"
}

@Suite("headsup beacons watch with BlueZ on D-Bus", .serialized)
struct BeaconsBlueZSystemTests {
    let tolerance = 0.3

    init() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
    }

    @Test func aWalkByEntersAndExitsOnTimeAndSetsTheDiscoveryFilter() throws {
        // -90 → -60 in 5 dB steps every 0.2 s, jitter at the top, back down, then silence.
        var steps = [device(0.2, rssi: -90)]
        var rssi = -85
        var t = 0.4
        while rssi <= -60 {
            steps.append(advertise(t, rssi: rssi))
            rssi += 5
            t += 0.2
        }
        for jitter in [-62, -58, -61, -59, -63] {
            steps.append(advertise(t, rssi: jitter))
            t += 0.2
        }
        for falling in [-66, -72, -78, -84, -90] {
            steps.append(advertise(t, rssi: falling))
            t += 0.2
        }
        let run = try BlueZScenario.run(steps, seconds: 5)
        #expect(run.regionEvents == ["enter", "exit:weak-signal"], "\(run.events)\n\(run.log)")
        // Enter: the first -70 (at 0.4 + 3·0.2 = 1.0 s) held for the 0.5 s dwell.
        let firstQualifying = try #require(run.monotonic(ofStepAt: 1.0))
        let enter = try #require(run.monotonic(ofEvent: "enter"))
        #expect(abs(enter - (firstQualifying + 0.5)) < tolerance, "enter \(enter - firstQualifying) s after -70")
        // Exit: the first reading below -80 (-84).
        let firstWeakAt: Double = 0.4 + 0.2 * 14  // 6 rising (-85…-60), 5 jitter, then -66, -72, -78, -84
        let firstWeak = try #require(run.monotonic(ofStepAt: firstWeakAt))
        let exit = try #require(run.monotonic(ofEvent: "exit"))
        #expect(abs(exit - firstWeak) < tolerance)
        // The filter that removes bluetoothd's RSSI threshold, then discovery, then its stop on exit.
        #expect(run.calls.map { $0["method"] as? String } == ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"])
        let filter = try #require((run.calls.first?["args"] as? [Any])?.first as? [String: Any])
        #expect(filter["Transport"] as? String == "le")
        #expect(filter["DuplicateData"] as? Int == 1)
        #expect(filter["RSSI"] as? Int == -127)
    }

    /// Another client on the bus plays bluetoothd: unicast InterfacesAdded
    /// and PropertiesChanged of a made-up iBeacon of the region, addressed
    /// to the watch, then a NameOwnerChanged saying org.bluez left. None of
    /// it is from org.bluez's owner or the bus: no enter, no reset, each
    /// counted; the real bluetoothd's beacon after it still enters.
    @Test func signalsFromAClientPlayingBlueZAreDroppedAndCounted() throws {
        let spoof = "{\"at\": 0.2, \"do\": \"spoof\", \"ibeacon\": [\"\(BlueZScenario.uuid)\", 1, 9, -59], \"rssi\": -40, \"count\": 15}"
        let steps = [spoof, device(2.5, rssi: -60), advertise(2.8, rssi: -60), advertise(3.1, rssi: -61), advertise(3.4, rssi: -60)]
        let run = try BlueZScenario.run(steps, seconds: 4.5)
        let spoofed = run.steps.first { $0["spoofed"] != nil }?["spoofed"] as? [String] ?? []
        #expect(!spoofed.isEmpty, "the spoofer found no client to send to: \(run.log)")
        #expect(run.regionEvents == ["enter"], "\(run.events)\n\(run.log)")
        let enters = run.events.filter { $0["event"] as? String == "enter" }
        #expect(enters.allSatisfy { ($0["beacon"] as? String)?.hasSuffix(":1:2") == true }, "only the real beacon enters: \(enters)")
        let realDevice = try #require(run.monotonic(ofStepAt: 2.5))
        #expect(try #require(run.monotonic(ofEvent: "enter")) > realDevice)
        #expect(!run.log.contains("bluetoothd left the bus"), "\(run.log)")
        let dropped = run.log.firstMatch(of: /(\d+) signals from other senders dropped/).flatMap { Int($0.1) } ?? 0
        #expect(dropped >= 17, "InterfacesAdded, 15 PropertiesChanged and NameOwnerChanged: \(run.log)")
    }

    @Test func aRemovedDeviceCountsAsUnseenUntilTheExitTimeout() throws {
        let steps = [device(0.2, rssi: -60), advertise(0.5, rssi: -60), advertise(0.8, rssi: -61), step(1.0, "remove")]
        let run = try BlueZScenario.run(steps, seconds: 4.5)
        #expect(run.regionEvents == ["enter", "exit:timeout"], "\(run.events)\n\(run.log)")
        let lastAdvertisement = try #require(run.monotonic(ofStepAt: 0.8))
        let exit = try #require(run.monotonic(ofEvent: "exit"))
        #expect(abs(exit - (lastAdvertisement + 2)) < tolerance)
    }

    @Test func aBluetoothdRestartMidWalkKeepsTheNextEntry() throws {
        let steps = [
            device(0.2, rssi: -60), advertise(0.5, rssi: -60), advertise(0.8, rssi: -60),
            "{\"at\": 1.0, \"do\": \"restart\"}",
            // After the restart the beacon is gone for longer than the exit timeout, then comes back close.
            device(4.0, rssi: -62), advertise(4.3, rssi: -61), advertise(4.6, rssi: -60), advertise(4.9, rssi: -60),
        ]
        let run = try BlueZScenario.run(steps, seconds: 6)
        #expect(run.regionEvents == ["enter", "exit:timeout", "enter"], "\(run.events)\n\(run.log)")
        #expect(run.log.contains("bluetoothd left the bus"))
        #expect(run.log.contains("bluetoothd (re)started; setting up discovery again"))
        #expect(run.log.contains("1 bluetoothd restarts"))
        // The first bluetoothd got filter and discovery; the restarted one got them again, then the stop.
        #expect(
            run.calls.map { $0["method"] as? String }
                == ["SetDiscoveryFilter", "StartDiscovery", "SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"])
        let comeback = try #require(run.monotonic(ofStepAt: 4.0))
        let secondEnter = try #require(run.monotonic(ofEvent: "enter", 1))
        #expect(abs(secondEnter - (comeback + 0.5)) < tolerance)
    }

    @Test func wrongTypedPropertiesAreCountedNotTrusted() throws {
        let steps = [device(0.2, rssi: -90), step(0.5, "odd"), advertise(0.8, rssi: -60), advertise(1.1, rssi: -60), advertise(1.4, rssi: -60)]
        let run = try BlueZScenario.run(steps, seconds: 2.5)
        #expect(run.regionEvents == ["enter"], "\(run.events)\n\(run.log)")
        #expect(run.log.contains("2 odd payloads ignored"))
        let sightings = run.events.filter { $0["event"] as? String == "proximity" }.compactMap { $0["rssi"] as? Int }
        #expect(!sightings.contains(-40), "the string RSSI must not be read as a number")
    }

    @Test func scanListsBeaconsInRangeAsJSONLines() throws {
        let steps = [
            device(0.2, rssi: -70), advertise(0.6, rssi: -64), device(0.8, rssi: -80, id: "other", minor: 9), advertise(1.6, rssi: -62),
            advertise(2.6, rssi: -61),
        ]
        let run = try BlueZScenario.run(steps, seconds: 3.5, scan: true)
        let beacons = Set(run.events.compactMap { $0["beacon"] as? String })
        #expect(beacons == ["ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2", "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:9"], "\(run.events)")
        let last = try #require(run.events.last { $0["beacon"] as? String == "ibeacon:B9407F30-F5F8-466E-AFF9-25556B57FE6D:1:2" })
        #expect(last["rssi"] as? Int == -61)
        #expect(last["proximity"] as? String == "near")
        #expect(last["distance"] != nil && last["smoothed_rssi"] != nil && last["last_seen"] != nil)
    }

    @Test func aDiscoveryThatSilentlyStallsIsRestarted() throws {
        // Advertisements stop while the beacon was in range (bluetoothd keeps the device).
        let steps = [device(0.2, rssi: -60), advertise(0.5, rssi: -60), advertise(0.8, rssi: -60)]
        let run = try BlueZScenario.run(steps, seconds: 4, options: BlueZScenario.sharpOptions + ["--stall-timeout", "1.5"])
        #expect(run.log.contains("restarting discovery"), "\(run.log)")
        #expect(run.log.contains("1 discovery restarts"))
        #expect(
            run.calls.map { $0["method"] as? String }
                == ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery", "SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"])
    }

    @Test func anAdapterPoweredOnLaterStartsDiscoveryThen() throws {
        let steps = [
            "{\"at\": 0, \"do\": \"adapter\", \"powered\": false}",
            "{\"at\": 0.5, \"do\": \"power\", \"powered\": true}",
            device(0.8, rssi: -60), advertise(1.1, rssi: -60), advertise(1.4, rssi: -60),
        ]
        let run = try BlueZScenario.run(steps, seconds: 2.5, waitFor: "powered off")
        #expect(run.log.contains("adapter /org/bluez/hci0 powered on"))
        #expect(run.regionEvents == ["enter"], "\(run.events)\n\(run.log)")
        #expect(run.calls.first?["method"] as? String == "SetDiscoveryFilter")
    }
}
