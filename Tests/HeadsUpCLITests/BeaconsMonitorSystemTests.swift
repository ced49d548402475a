import Foundation
import HeadsUpTestSupport
import Testing

/// `headsup beacons watch` with bluetoothd's advertisement monitor
/// (bluez_scenario.py's AdvertisementMonitorManager1: it reads the client's
/// monitor, activates it and reports only matching devices) with
/// `--scan monitor`, and the fallbacks to discovery: a refused
/// RegisterMonitor, a Release, the default setting.
@Suite("headsup beacons watch with BlueZ's advertisement monitor", .serialized)
struct BeaconsMonitorSystemTests {
    static let active = "advertisement monitor (or_patterns) on /org/bluez/hci0, active"

    static let monitorOptions = BlueZScenario.sharpOptions + ["--scan", "monitor"]

    init() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
    }

    static func adapter(monitor: String) -> String {
        "{\"at\": 0, \"do\": \"adapter\", \"powered\": true, \"monitor\": \(monitor)}"
    }

    /// An iBeacon of another venue's UUID: no pattern of the region matches it.
    static func stranger(_ at: Double) -> String {
        "{\"at\": \(at), \"do\": \"device\", \"id\": \"stranger\", \"ibeacon\": [\"11111111-2222-3333-4444-555555555555\", 1, 1, -59], \"rssi\": -50}"
    }

    static func methods(_ run: BlueZScenario) -> [String] {
        run.calls.compactMap { $0["method"] as? String }
    }

    static func monitorLog(_ run: BlueZScenario) -> [String: Int] {
        (run.steps.first { $0["monitor"] != nil }?["monitor"] as? [String: Int]) ?? [:]
    }

    @Test func aWalkByEntersAndExitsThroughTheMonitorWithNoDiscovery() throws {
        let steps =
            [Self.adapter(monitor: "true"), Self.stranger(0.1)] + BeaconsCrowdSystemTests.walkBy + [advertise(3.5, rssi: -50, id: "stranger")]
        let run = try BlueZScenario.run(steps, seconds: 5, options: Self.monitorOptions, waitFor: Self.active)
        #expect(run.regionEvents == ["enter", "exit:weak-signal"], "\(run.events)\n\(run.log)")
        #expect(Self.methods(run) == ["RegisterMonitor", "UnregisterMonitor"], "passive: no discovery at all. \(run.calls)")
        #expect((run.calls.first?["args"] as? [Any])?.first as? String == "/org/headsup/beacons")
        let monitor = Self.monitorLog(run)
        #expect(monitor["activated"] == 1 && monitor["found"] == 1, "\(monitor)")
        #expect(monitor["filtered"] == 1, "the other venue's beacon never reached the bus: \(monitor)")
        let counters = try #require(BeaconsCrowdSystemTests.counters(run.log), "\(run.log)")
        #expect(counters["devices found by the monitor"] == 1, "\(counters)")
        #expect(counters["of beacons in no region"] == 0, "\(counters)")
        #expect(run.log.contains("beacons scan path: " + Self.active), "\(run.log)")
    }

    @Test func aRefusedRegistrationFallsBackToDiscovery() throws {
        let run = try BlueZScenario.run(
            [
                Self.adapter(monitor: "\"refuse\""), device(0.2, rssi: -60), advertise(0.4, rssi: -60), advertise(0.6, rssi: -60),
                advertise(0.8, rssi: -60),
            ],
            seconds: 2, options: Self.monitorOptions)
        #expect(run.regionEvents.first == "enter", "\(run.events)\n\(run.log)")
        #expect(Self.methods(run) == ["RegisterMonitor", "SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"], "\(run.calls)")
        #expect(run.log.contains("discovery on /org/bluez/hci0, because RegisterMonitor failed"), "\(run.log)")
    }

    @Test func aReleasedMonitorFallsBackToDiscovery() throws {
        var steps = [Self.adapter(monitor: "true"), "{\"at\": 0.3, \"do\": \"release\"}", device(1.0, rssi: -60)]
        steps += stride(from: 1.2, through: 2.0, by: 0.2).map { advertise($0, rssi: -60) }
        let run = try BlueZScenario.run(steps, seconds: 3, options: Self.monitorOptions, waitFor: Self.active)
        #expect(run.regionEvents.first == "enter", "\(run.events)\n\(run.log)")
        #expect(Self.methods(run) == ["RegisterMonitor", "SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"], "\(run.calls)")
        #expect(Self.monitorLog(run)["released"] == 1)
        #expect(run.log.contains("because bluetoothd released the advertisement monitor"), "\(run.log)")
    }

    /// Discovery is the default (see BlueZScanMode: bluetoothd's 8 dBm RSSI threshold without it).
    @Test func theDefaultDiscoversWhereTheMonitorIsOffered() throws {
        let run = try BlueZScenario.run(
            [Self.adapter(monitor: "true"), device(0.2, rssi: -60), advertise(0.4, rssi: -60), advertise(0.6, rssi: -60), advertise(0.8, rssi: -60)],
            seconds: 2)
        #expect(run.regionEvents.first == "enter", "\(run.events)\n\(run.log)")
        #expect(Self.methods(run) == ["SetDiscoveryFilter", "StartDiscovery", "StopDiscovery"], "\(run.calls)")
        #expect(run.log.contains("because beacons.scan is discovery (the default)"), "\(run.log)")
    }

    /// The crowd matches no pattern: with the monitor it sends nothing, and
    /// HeadsUp decodes nothing of it (no advertisement without a beacon, no
    /// beacon of another region, nothing set aside), while the walk-by
    /// still enters and exits.
    @Test func aNonMatchingCrowdCostsNothingWithTheMonitor() throws {
        let steps =
            [Self.adapter(monitor: "true")] + BeaconsCrowdSystemTests.walkBy + [BeaconsCrowdSystemTests.crowd(devices: 400, rate: 300, rotate: 20)]
        let run = try BlueZScenario.run(steps, seconds: 5, options: Self.monitorOptions, waitFor: Self.active)
        #expect(run.regionEvents == ["enter", "exit:weak-signal"], "\(run.events)\n\(run.log)")
        let totals = try #require(run.steps.first { $0["crowd"] != nil }?["crowd"] as? [String: Any], "\(run.steps)")
        #expect((totals["filtered"] as? Int ?? 0) > 1000, "the crowd advertised and the monitor filtered it: \(totals)")
        #expect((totals["rate"] as? Double ?? 0) > 270, "\(totals)")
        let counters = try #require(BeaconsCrowdSystemTests.counters(run.log), "\(run.log)")
        #expect(counters["without a beacon frame"] == 0, "\(counters)")
        #expect(counters["of beacons in no region"] == 0, "\(counters)")
        #expect(counters["updates set aside undecoded"] == 0, "\(counters)")
        #expect(counters["advertisements"] ?? 0 <= 20, "the walk-by's alone: \(counters)")
    }
}
