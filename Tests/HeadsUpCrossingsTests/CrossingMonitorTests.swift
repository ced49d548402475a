import HeadsUpBeacons
import Testing

@testable import HeadsUpCrossings

@Suite("Crossing monitor")
struct CrossingMonitorTests {
    let origin = GeoPoint(latitude: 43.7384, longitude: 7.4246)
    var crossing: Crossing { Crossing(id: 42, kind: .marked, position: origin) }

    func monitor(_ configuration: CrossingMonitorConfiguration = .init(), crossings: [Crossing]? = nil) -> CrossingMonitor {
        CrossingMonitor(grid: CrossingGrid(crossings ?? [crossing]), configuration: configuration)
    }

    /// A walk north along `east` metres from the crossing, from `from` to `to` metres north, one fix a second.
    func walk(
        east: Double = 0, from: Double = -40, to: Double = 40, speed: Double = 1.4, accuracy: Double = 5, reportSpeed: Bool = true,
        start: Double = 100
    ) -> [LocationFix] {
        let steps = Int((to - from) / speed)
        return (0...steps).map { step in
            LocationFix(
                time: start + Double(step), position: Geodesy.moved(origin, east: east, north: from + Double(step) * speed), accuracy: accuracy,
                speed: reportSpeed ? speed : nil, heading: 0)
        }
    }

    func run(_ monitor: inout CrossingMonitor, _ fixes: [LocationFix], delay: Double = 0.2) -> [RegionEvent] {
        fixes.flatMap { monitor.observe($0, at: $0.time + delay) }
    }

    @Test func walkingOverACrossingEntersOnceAndLeaves() throws {
        var monitor = monitor()
        let events = run(&monitor, walk())
        #expect(events.count == 2)
        guard case .entered(let region, let beacon, let time) = try #require(events.first) else {
            Issue.record("expected an entry first")
            return
        }
        #expect(region.name == "osm:node/42")
        #expect(beacon.identity == .mapped(place: "osm:node/42", kind: "marked"))
        #expect(beacon.identity.description == "osm:node/42 (marked)")
        // Within 12 + 5 m while approaching at 1.4 m/s, held over a second fix: about 15.6 m before it.
        let distance = try #require(beacon.distance)
        #expect(distance < 17 && distance > 12)
        #expect(time > 110 && time <= 120)
        guard case .exited(_, _, let exitTime, .weakSignal) = try #require(events.last) else {
            Issue.record("expected an exit last")
            return
        }
        #expect(exitTime > time + 20)
        #expect(monitor.counters.entries == 1)
        #expect(monitor.counters.used == monitor.counters.fixes)
    }

    @Test func aParallelStreetFortyMetresAwayEntersNothing() {
        var monitor = monitor()
        #expect(run(&monitor, walk(east: 40)).isEmpty)
    }

    @Test func aBusPassingEntersNothing() {
        var monitor = monitor()
        #expect(run(&monitor, walk(from: -200, to: 200, speed: 9)).isEmpty)
        #expect(monitor.counters.tooFast > 0)
        // Without a reported speed, the speed between fixes tells the same.
        var unreported = self.monitor()
        #expect(run(&unreported, walk(from: -200, to: 200, speed: 9, reportSpeed: false)).isEmpty)
    }

    @Test func wiFiFixesAreIgnoredAndCounted() {
        var monitor = monitor()
        #expect(run(&monitor, walk(accuracy: 60)).isEmpty)
        #expect(monitor.counters.tooInaccurate == monitor.counters.fixes)
    }

    @Test func oldFixesAreIgnoredAndCounted() {
        var monitor = monitor()
        #expect(run(&monitor, walk(), delay: 6).isEmpty)
        #expect(monitor.counters.tooOld == monitor.counters.fixes)
    }

    @Test func oneStrayFixDoesNotEnter() {
        var monitor = monitor()
        var fixes = walk(east: 60, from: -20, to: 20)
        // One fix jumps onto the crossing, the next is back on the far street.
        fixes[10].position = Geodesy.moved(origin, east: 3, north: 0)
        #expect(run(&monitor, fixes).isEmpty)
    }

    @Test func standingAtTheCrossingDoesNotEnterAgain() {
        var monitor = monitor()
        var fixes = walk(from: -30, to: 0)
        let end = fixes.last!
        // Waiting at the red light for two minutes, the fix wandering 20–40 m about (out and back in).
        for second in 1...100 {
            let north = second % 20 < 10 ? -45.0 : 0.0
            let distance = Double(second % 10) * 4
            fixes.append(
                LocationFix(
                    time: end.time + Double(second), position: Geodesy.moved(origin, east: 0, north: north + (north < 0 ? distance : 0)), accuracy: 5,
                    speed: 1))
        }
        let entries = run(&monitor, fixes).filter { if case .entered = $0 { true } else { false } }
        #expect(entries.count == 1)
        #expect(monitor.counters.suppressedByCooldown > 0)
    }

    @Test func silenceLeavesAfterTheTimeout() {
        var monitor = monitor()
        let fixes = walk(from: -30, to: 0)
        _ = run(&monitor, fixes)
        #expect(monitor.insideIDs == [42])
        #expect(monitor.advance(to: fixes.last!.time + 10).isEmpty)
        let events = monitor.advance(to: fixes.last!.time + 16)
        guard case .exited(_, _, let time, .timeout) = events.first else {
            Issue.record("expected a timeout exit, got \(events)")
            return
        }
        #expect(time == fixes.last!.time + 15)
    }

    @Test func kindsNotChosenAreNotRegions() {
        var config = CrossingMonitorConfiguration()
        config.kinds = [.signals]
        var monitor = monitor(config)
        #expect(run(&monitor, walk()).isEmpty)
    }

    @Test func hostileFixes() {
        var monitor = monitor()
        for fix in [
            LocationFix(time: 1, position: GeoPoint(latitude: .nan, longitude: 0), accuracy: 5),
            LocationFix(time: .infinity, position: origin, accuracy: 5),
            LocationFix(time: 1, position: origin, accuracy: .nan),
            LocationFix(time: 1, position: GeoPoint(latitude: 91, longitude: 0), accuracy: 5),
        ] {
            #expect(monitor.observe(fix, at: 1).isEmpty)
        }
        #expect(monitor.counters.invalid == 4)
        #expect(monitor.observe(LocationFix(time: 2, position: origin, accuracy: .infinity), at: 2).isEmpty)
        #expect(monitor.counters.tooInaccurate == 1)
    }

    @Test func aFirstFixHeadingTowardsTheCrossingCanStartTheEntry() {
        var monitor = monitor()
        let first = LocationFix(time: 1, position: Geodesy.moved(origin, east: 0, north: -10), accuracy: 3, speed: 1.2, heading: 10)
        let second = LocationFix(time: 2, position: Geodesy.moved(origin, east: 0, north: -9), accuracy: 3, speed: 1.2, heading: 10)
        #expect(monitor.observe(first, at: 1).isEmpty)
        #expect(monitor.observe(second, at: 2).count == 1)
        var away = self.monitor()
        #expect(away.observe(LocationFix(time: 1, position: first.position, accuracy: 3, speed: 1.2, heading: 190), at: 1).isEmpty)
        #expect(away.observe(second, at: 2).isEmpty)
    }
}
