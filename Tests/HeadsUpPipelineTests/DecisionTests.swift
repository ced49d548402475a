import Foundation
import HeadsUpBeacons
import HeadsUpData
import Testing

@testable import HeadsUpPipeline

@Suite("Distraction tracker")
struct DistractionTrackerTests {
    @Test func emaFollowsTheTimeConstantWhateverTheHop() {
        for hop in [0.25, 0.5, 1.0] {
            var tracker = DistractionTracker(configuration: .init(timeConstant: 2, enterThreshold: 2, exitThreshold: 1, minimumDuration: 0))
            _ = tracker.add(score: 0, at: 0)
            var t = 0.0
            while t < 2 - 1e-9 {
                t += hop
                _ = tracker.add(score: 1, at: t)
            }
            // After one time constant of a step input: 1 − e⁻¹.
            #expect(abs(tracker.smoothedScore! - (1 - exp(-1))) < 1e-12, "hop \(hop)")
        }
    }

    @Test func hysteresisAndMinimumDuration() {
        var tracker = DistractionTracker(configuration: .init(timeConstant: 0, enterThreshold: 0.6, exitThreshold: 0.4, minimumDuration: 1))
        var changes: [DistractionTracker.Change] = []
        let scores: [(Double, Double)] = [
            (0, 0.7), (0.5, 0.2), (1, 0.7), (1.5, 0.7), (2, 0.7), (2.5, 0.5), (3, 0.45), (3.5, 0.3), (4, 0.3), (4.5, 0.3),
        ]
        for (time, score) in scores { if let change = tracker.add(score: score, at: time) { changes.append(change) } }
        // A dip resets the clock; 0.5 and 0.45 sit inside the hysteresis band.
        #expect(changes == [.becameDistracted(at: 2), .becameAttentive(at: 4.5)])
    }

    @Test func defaultsComeFromTheModelThreshold() {
        let configuration = DistractionConfiguration.around(threshold: 0.62)
        #expect(configuration.enterThreshold == 0.62)
        #expect(abs(configuration.exitThreshold - 0.47) < 1e-12)
    }
}

let uuid = UUID(uuidString: "B9407F30-F5F8-466E-AFF9-25556B57FE6D")!
let crossing = BeaconRegion(name: "crossing", pattern: .iBeacon(uuid: uuid, major: 1, minor: nil))
let beacon = BeaconIdentity.iBeacon(uuid: uuid, major: 1, minor: 2)

func status(_ proximity: Proximity, rssi: Int = -60) -> BeaconStatus {
    BeaconStatus(identity: beacon, rssi: rssi, smoothedRSSI: Double(rssi), measuredPower: -59, distance: 1, proximity: proximity, lastSeen: 0)
}

@Suite("Warning policy")
struct WarningPolicyTests {
    @Test func warnsOnEntryOnlyWhenDistractedAndRespectsTheCooldown() {
        var policy = WarningPolicy(configuration: .init(checkInterval: 5, cooldown: 30))
        let enter = RegionEvent.entered(region: crossing, beacon: status(.near), time: 10)
        let first = policy.evaluate(events: [enter], beaconsInRegions: [], at: 10, distracted: false, smoothedScore: 0.1)
        #expect(first.map(\.outcome) == [.notDistracted])
        let exit = RegionEvent.exited(region: crossing, beacon: beacon, time: 12, reason: .timeout)
        _ = policy.evaluate(events: [exit], beaconsInRegions: [], at: 12, distracted: false, smoothedScore: nil)
        let second = policy.evaluate(
            events: [.entered(region: crossing, beacon: status(.near), time: 20)], beaconsInRegions: [], at: 20, distracted: true, smoothedScore: 0.8)
        #expect(second.map(\.outcome) == [.warned])
        _ = policy.evaluate(
            events: [.exited(region: crossing, beacon: beacon, time: 25, reason: .weakSignal)], beaconsInRegions: [], at: 25, distracted: true,
            smoothedScore: nil)
        let third = policy.evaluate(
            events: [.entered(region: crossing, beacon: status(.near), time: 30)], beaconsInRegions: [], at: 30, distracted: true, smoothedScore: 0.8)
        #expect(third.map(\.outcome) == [.coolingDown])
    }

    @Test func insideChecksAreThrottledAndNeedTheProximity() {
        var policy = WarningPolicy(configuration: .init(proximity: .near, checkInterval: 5, cooldown: 30))
        _ = policy.evaluate(
            events: [.entered(region: crossing, beacon: status(.far), time: 0)], beaconsInRegions: [], at: 0, distracted: false, smoothedScore: nil)
        var outcomes: [String] = []
        for t in stride(from: 1.0, through: 16, by: 1) {
            let proximity: Proximity = t < 8 ? .far : .near
            let decisions = policy.evaluate(
                events: [], beaconsInRegions: [(crossing, status(proximity))], at: t, distracted: true, smoothedScore: 0.9)
            outcomes += decisions.map { "\(Int(t)):\($0.outcome.rawValue)" }
        }
        #expect(outcomes == ["5:too-far", "10:warned", "15:cooling-down"])
    }
}
