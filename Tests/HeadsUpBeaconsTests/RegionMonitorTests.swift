import Foundation
import Testing

@testable import HeadsUpBeacons

let crossingUUID = UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!
let crossingBeacon = BeaconIdentity.iBeacon(uuid: crossingUUID, major: 1, minor: 2)
let otherBeacon = BeaconIdentity.iBeacon(uuid: crossingUUID, major: 1, minor: 3)

func sighting(_ identity: BeaconIdentity, _ rssi: Int, at time: Double) -> BeaconSighting {
    BeaconSighting(identity: identity, rssi: rssi, measuredPower: -59, time: time)
}

func sighting(_ rssi: Int, at time: Double) -> BeaconSighting { sighting(crossingBeacon, rssi, at: time) }

/// Feeds sightings in order and collects every event.
func run(_ monitor: inout RegionMonitor, _ sightings: [BeaconSighting], until end: Double? = nil) -> [RegionEvent] {
    var events: [RegionEvent] = []
    for s in sightings { events += monitor.observe(s) }
    if let end { events += monitor.advance(to: end) }
    return events
}

extension RegionEvent {
    /// "enter crossing @1.0" style summary, for exact sequence assertions.
    var summary: String {
        switch self {
        case .entered(let region, _, let time): "enter \(region.name) @\(time)"
        case .exited(let region, _, let time, let reason): "exit \(region.name) @\(time) (\(reason == .timeout ? "timeout" : "weak"))"
        case .proximityChanged(let beacon, let from, let time): "\(from.rawValue)→\(beacon.proximity.rawValue) @\(time)"
        }
    }
}

@Suite("Region monitor")
struct RegionMonitorTests {
    let region = BeaconRegion(name: "crossing", pattern: .iBeacon(uuid: crossingUUID, major: 1, minor: nil))
    /// Raw RSSI (no smoothing) so thresholds are exact.
    var sharp: RegionMonitorConfiguration {
        RegionMonitorConfiguration(rule: .rssi(enter: -70, exit: -80), dwell: 1, exitTimeout: 10, filter: .arma(coefficient: 1))
    }

    func regionEvents(_ events: [RegionEvent]) -> [String] {
        events.filter { if case .proximityChanged = $0 { false } else { true } }.map(\.summary)
    }

    @Test func entersOnlyAfterTheDwell() {
        var monitor = RegionMonitor(regions: [region], configuration: sharp)
        let walk = stride(from: 0.0, through: 3, by: 0.5).map { sighting(-65, at: $0) }
        #expect(regionEvents(run(&monitor, walk)) == ["enter crossing @1.0"])
        #expect(monitor.isInside(region))
    }

    @Test func theDwellCompletesWithoutWaitingForTheNextAdvertisement() {
        var monitor = RegionMonitor(regions: [region], configuration: sharp)
        #expect(regionEvents(run(&monitor, [sighting(-60, at: 5)])).isEmpty)
        #expect(monitor.advance(to: 5.9).isEmpty)
        #expect(monitor.advance(to: 7.5).map(\.summary) == ["enter crossing @6.0"])
    }

    @Test func aBriefPeakIsNotAnEntry() {
        var monitor = RegionMonitor(regions: [region], configuration: sharp)
        let walk = [sighting(-65, at: 0), sighting(-66, at: 0.5), sighting(-85, at: 0.9), sighting(-65, at: 1.2), sighting(-65, at: 1.8)]
        #expect(regionEvents(run(&monitor, walk)).isEmpty)
        #expect(regionEvents(run(&monitor, [sighting(-65, at: 2.2)])) == ["enter crossing @2.2"])
    }

    @Test func hysteresisKeepsAHoveringSignalInside() {
        var monitor = RegionMonitor(regions: [region], configuration: sharp)
        _ = run(&monitor, [sighting(-60, at: 0), sighting(-60, at: 1)])
        let hovering = (0..<40).map { sighting($0 % 2 == 0 ? -72 : -78, at: 1.5 + Double($0) * 0.25) }
        #expect(regionEvents(run(&monitor, hovering)).isEmpty)
        #expect(regionEvents(run(&monitor, [sighting(-81, at: 12)])) == ["exit crossing @12.0 (weak)"])
    }

    @Test func aWalkByGivesExactlyOneEnterAndOneExit() {
        // Default smoothing and distance rule: RSSI rises from -95 to -55 over 20 s with ±4 dB jitter, then falls.
        var monitor = RegionMonitor(regions: [region])
        var walk: [BeaconSighting] = []
        let jitter = [0, 3, -4, 2, -1, 4, -3, 1]
        for step in 0..<80 {
            let t = Double(step) * 0.5
            let base = t <= 20 ? -95 + 2 * t : -55 - 2 * (t - 20)
            walk.append(sighting(Int(base) + jitter[step % jitter.count], at: t))
        }
        let events = regionEvents(run(&monitor, walk, until: 60))
        #expect(events.count == 2, "\(events)")
        #expect(events.first?.hasPrefix("enter crossing @") == true)
        #expect(events.last?.hasPrefix("exit crossing @") == true)
    }

    @Test func silenceEndsTheVisitAtTheExitTimeout() {
        var monitor = RegionMonitor(regions: [region], configuration: sharp)
        let visit = [0.0, 1, 6, 11, 16, 20].map { sighting(-60, at: $0) }
        #expect(regionEvents(run(&monitor, visit)) == ["enter crossing @1.0"])
        #expect(monitor.advance(to: 30).isEmpty)
        #expect(monitor.advance(to: 30.5).map(\.summary) == ["exit crossing @30.0 (timeout)"])
        #expect(monitor.beacons.isEmpty)
    }

    @Test func aRegionHeldByTwoBeaconsIsLeftWhenTheLastGoes() {
        var monitor = RegionMonitor(regions: [region], configuration: sharp)
        let both = [sighting(-60, at: 0), sighting(otherBeacon, -62, at: 0.2), sighting(-60, at: 1), sighting(otherBeacon, -62, at: 1.2)]
        #expect(regionEvents(run(&monitor, both)) == ["enter crossing @1.0"])
        #expect(regionEvents(run(&monitor, [sighting(-90, at: 2)])).isEmpty)
        #expect(regionEvents(run(&monitor, [sighting(otherBeacon, -90, at: 3)])) == ["exit crossing @3.0 (weak)"])
    }

    @Test func aGapLongerThanTheTimeoutIsAnExitAndAFreshEntry() {
        var monitor = RegionMonitor(regions: [region], configuration: sharp)
        let events = run(&monitor, [sighting(-60, at: 0), sighting(-60, at: 1), sighting(-60, at: 20), sighting(-60, at: 21)])
        #expect(regionEvents(events) == ["enter crossing @1.0", "exit crossing @11.0 (timeout)", "enter crossing @21.0"])
    }

    /// A crowded street: beacons of no region are counted, never tracked or
    /// smoothed; `beacons scan` (no regions, or asked to) still tracks them all.
    @Test func beaconsOutsideEveryRegionAreCountedNotTracked() {
        var monitor = RegionMonitor(regions: [region], configuration: sharp)
        let stranger = BeaconIdentity.iBeacon(uuid: UUID(), major: 1, minor: 2)
        #expect(run(&monitor, [sighting(stranger, -50, at: 0), sighting(stranger, -50, at: 2)]).isEmpty)
        #expect(monitor.beacons.isEmpty && monitor.ignoredSightings == 2)
        var scanning = RegionMonitor(regions: [region], configuration: sharp, tracksEveryBeacon: true)
        #expect(regionEvents(run(&scanning, [sighting(stranger, -50, at: 0), sighting(stranger, -50, at: 2)])).isEmpty)
        #expect(scanning.beacons.map(\.identity) == [stranger])
    }

    /// Rotating identities come and go: the tables stay at what the exit
    /// timeout holds, however many have passed.
    @Test func tenThousandPassingBeaconsLeaveNothingBehind() {
        var monitor = RegionMonitor(regions: [], configuration: sharp)
        for index in 0..<10_000 {
            let identity = BeaconIdentity.iBeacon(uuid: UUID(), major: UInt16(index % 65_536), minor: 1)
            _ = monitor.observe(BeaconSighting(identity: identity, rssi: -70, measuredPower: -59, time: Double(index) * 0.01))
        }
        // 100 s of sightings, 10 s exit timeout: about the last 10 s (1,000 beacons) remain.
        #expect(abs(monitor.trackedCount - 1_000) <= 2, "\(monitor.trackedCount)")
        _ = monitor.advance(to: 1_000)
        #expect(monitor.trackedCount == 0)
    }

    @Test func proximityChangesAreReported() {
        var monitor = RegionMonitor(regions: [region], configuration: sharp)
        let events = run(&monitor, [sighting(-90, at: 0), sighting(-65, at: 1), sighting(-45, at: 2)])
        let changes = events.compactMap { if case .proximityChanged = $0 { $0.summary } else { nil } }
        #expect(changes == ["unknown→far @0.0", "far→near @1.0", "near→immediate @2.0"])
    }
}

@Suite("RSSI filters and distance")
struct FilterTests {
    @Test func armaMovesAFractionOfTheWay() {
        var filter = ARMAFilter(coefficient: 0.1)
        filter.add(-60, at: 0)
        filter.add(-70, at: 1)
        #expect(filter.value(at: 1) == -61)
    }

    @Test func trimmedMeanDropsOutliersAndOldReadings() {
        var filter = TrimmedMeanFilter(window: 20, trim: 0.1)
        for (i, rssi) in [-60.0, -61, -59, -60, -90, -60, -61, -59, -60, -30].enumerated() { filter.add(rssi, at: Double(i)) }
        #expect(filter.value(at: 9) == -60)
        #expect(filter.value(at: 40) == nil)
    }

    @Test func distanceCurveAndClasses() throws {
        let model = DistanceModel()
        #expect(try #require(model.distance(rssi: -59, measuredPower: -59)) == 0.42093 + 0.54992)
        #expect(try #require(model.distance(rssi: -40, measuredPower: -59)) < 0.5)
        #expect(model.distance(rssi: 0, measuredPower: -59) == nil)
        #expect(model.proximity(distance: 0.3) == .immediate)
        #expect(model.proximity(distance: 2) == .near)
        #expect(model.proximity(distance: 7) == .far)
        #expect(model.proximity(distance: nil) == .unknown)
    }
}

@Suite("RSSI filter specs")
struct RSSIFilterSpecTests {
    @Test(arguments: [
        "trimmed:1e300:0.1", "trimmed:inf:0.1", "trimmed:nan:0.1", "trimmed:-1:0.1", "trimmed:20:nan", "trimmed:20:0.5", "arma:inf", "arma:nan",
        "arma:0", "trimmed::0.1",
    ])
    func outOfRangeNumbersAreRefused(spec: String) {
        #expect(throws: RegionSpecError.self) { try RSSIFilterKind(parsing: spec) }
    }

    @Test func theLongestWindowRoundTrips() throws {
        #expect(try RSSIFilterKind(parsing: "trimmed:3600:0.1").spec == "trimmed:3600:0.1")
        #expect(try RSSIFilterKind(parsing: "trimmed:2.5:0").spec == "trimmed:2.5:0")
        #expect(try RSSIFilterKind(parsing: "arma:1").spec == "arma:1")
    }
}
