import HeadsUpBeacons
import HeadsUpCrossings
import HeadsUpData
import Testing

@testable import HeadsUpPipeline

/// The mapped crossings through the pipeline: the same decisions and
/// warnings as a beacon region, and one warning where both meet.
@Suite("Pipeline with mapped crossings")
struct CrossingPipelineTests {
    let node = GeoPoint(latitude: 43.7375272, longitude: 7.425191)

    func pipeline(crossings: Bool = true) -> HeadsUpPipeline {
        HeadsUpPipeline(
            scorer: SignScorer(),
            configuration: .init(
                distraction: .init(timeConstant: 0.5, enterThreshold: 0.5, exitThreshold: 0.35, minimumDuration: 0.5),
                warning: .init(), regions: [crossing],
                monitor: .init(rule: .rssi(enter: -70, exit: -80), dwell: 0.5, exitTimeout: 3, filter: .arma(coefficient: 1)),
                crossings: crossings ? CrossingGrid([Crossing(id: 21_911_888, kind: .marked, position: node)]) : nil))
    }

    /// 20 s of motion; fixes once a second walking north over the node
    /// (from 20 m south at 1.4 m/s), and, with `beaconAt`, the beacon seen from that second on.
    func walk(_ pipeline: HeadsUpPipeline, motion: Double = 1, speed: Double = 1.4, beaconFrom: Int? = nil) -> [PipelineEvent] {
        var all: [PipelineEvent] = []
        for second in 0..<20 {
            let t = 1000.0 + Double(second)
            all += pipeline.process(samples: grid(from: t, seconds: 1, value: motion))
            let sightings =
                beaconFrom.map { second >= $0 && second < $0 + 6 } == true
                ? (0..<10).map { BeaconSighting(identity: beacon, rssi: -60, measuredPower: -59, time: t + Double($0) / 10) } : []
            all += pipeline.process(sightings: sightings, at: t + 0.99)
            let fix = LocationFix(
                time: t + 0.5, position: Geodesy.moved(node, east: 0, north: -28 + speed * Double(second)), accuracy: 4, speed: speed)
            all += pipeline.process(fixes: [(fix, t + 0.6)], at: t + 0.99)
        }
        return all
    }

    func warnings(_ events: [PipelineEvent]) -> [Warning] { events.compactMap { if case .warning(let w) = $0 { w } else { nil } } }

    @Test func aDistractedWalkOverAMappedCrossingWarnsOnce() {
        let events = walk(pipeline())
        let warned = warnings(events)
        #expect(warned.count == 1)
        #expect(warned.first?.region == "osm:node/21911888")
        #expect(warned.first?.beacon == "osm:node/21911888 (marked)")
        #expect(warned.first?.trigger == "enter")
        #expect(events.contains { if case .region(.entered(let region, _, _)) = $0 { region.name == "osm:node/21911888" } else { false } })
    }

    @Test func pocketedOrOnABusItNeverWarns() {
        #expect(warnings(walk(pipeline(), motion: -1)).isEmpty)
        let bus = pipeline()
        #expect(warnings(walk(bus, speed: 9)).isEmpty)
        #expect(bus.crossingMonitor?.counters.tooFast ?? 0 > 0)
    }

    /// A beacon at the same crossing: whichever enters first warns, the other says cooling-down.
    @Test func aBeaconAndAMappedCrossingAtOnePlaceWarnOnce() {
        for beaconFrom in [6, 17] {
            let events = walk(pipeline(), beaconFrom: beaconFrom)
            #expect(warnings(events).count == 1, "beacon from \(beaconFrom) s")
            let entries = events.compactMap { if case .decision(let d) = $0, d.trigger == "enter" { d } else { nil } }
            #expect(Set(entries.map(\.region)) == ["crossing", "osm:node/21911888"])
            #expect(entries.filter { $0.outcome == .coolingDown }.count == 1)
        }
    }

    /// Without a crossings file fixes change nothing, and the beacon walk is as before.
    @Test func withoutACrossingsFileFixesAreNotLookedAt() {
        let p = pipeline(crossings: false)
        let events = walk(p, beaconFrom: 8)
        #expect(p.crossingMonitor == nil)
        #expect(warnings(events).map(\.region) == ["crossing"])
    }
}
