import Foundation
import HeadsUpBeacons
import HeadsUpData
import Testing

@testable import HeadsUpPipeline

/// "Distracted" when the window's mean acc_x is positive: lets tests script the motion.
struct SignScorer: WindowScorer {
    func score(_ window: MotionWindow) -> Double {
        let mean = (0..<window.length).map { Double(window[.accelerationX, $0]) }.reduce(0, +) / Double(window.length)
        return mean > 0 ? 0.95 : 0.05
    }
}

/// 50 Hz grid samples from `start` for `seconds`, acc_x = `value`; while
/// `walking`, z bounces 0.2 g at 1.8 steps a second.
func grid(from start: Double, seconds: Double, value: Double, walking: Bool = true) -> [ResampledEvent] {
    let first = Int64((start * 50).rounded())
    return (0..<Int(seconds * 50)).map { i in
        let index = first + Int64(i)
        let time = Double(index) / 50
        let bounce = walking ? 0.2 * sin(2 * .pi * 1.8 * time) : 0
        let s = MotionSample(time: time, acceleration: SIMD3(value, 0, -1 - bounce), rotationRate: .zero, magneticField: .zero)
        return .sample(s, gridIndex: index)
    }
}

@Suite("Pipeline")
struct PipelineTests {
    func pipeline(onlyWhileWalking: Bool = true) -> HeadsUpPipeline {
        HeadsUpPipeline(
            scorer: SignScorer(),
            configuration: .init(
                distraction: .init(timeConstant: 0.5, enterThreshold: 0.5, exitThreshold: 0.35, minimumDuration: 0.5),
                warning: .init(onlyWhileWalking: onlyWhileWalking), regions: [crossing],
                monitor: .init(rule: .rssi(enter: -70, exit: -80), dwell: 0.5, exitTimeout: 3, filter: .arma(coefficient: 1))))
    }

    /// Runs motion and a walk to the beacon, second by second; returns the warnings.
    func walk(_ pipeline: HeadsUpPipeline, motion value: Double, walking: Bool = true) -> [Warning] {
        walkEvents(pipeline, motion: value, walking: walking).compactMap { if case .warning(let w) = $0 { w } else { nil } }
    }

    func walkEvents(_ pipeline: HeadsUpPipeline, motion value: Double, walking: Bool = true) -> [PipelineEvent] {
        var all: [PipelineEvent] = []
        for second in 0..<20 {
            let t = 1000.0 + Double(second)
            var events = pipeline.process(samples: grid(from: t, seconds: 1, value: value, walking: walking))
            var sightings: [BeaconSighting] = []
            if (8..<14).contains(second) {
                for tenth in 0..<10 {
                    sightings.append(
                        BeaconSighting(identity: beacon, rssi: second < 10 ? -75 : -60, measuredPower: -59, time: t + Double(tenth) / 10))
                }
            }
            events += pipeline.process(sightings: sightings, at: t + 0.99)
            all += events
        }
        return all
    }

    /// Someone standing by a beacon (a bus stop) with the phone in the hands is not warned; the decision says why.
    @Test func aDistractedUserStandingStillIsNotWarned() {
        let events = walkEvents(pipeline(), motion: 1, walking: false)
        #expect(!events.contains { if case .warning = $0 { true } else { false } })
        #expect(events.contains { if case .decision(let d) = $0 { d.outcome == .notWalking } else { false } })
        #expect(walk(pipeline(onlyWhileWalking: false), motion: 1, walking: false).count == 1, "the gate can be turned off")
    }

    @Test func aDistractedWalkIntoTheRegionWarnsExactlyOnce() {
        let p = pipeline()
        let warnings = walk(p, motion: 1)
        #expect(warnings.count == 1)
        #expect(warnings.first?.region == "crossing")
        #expect(warnings.first?.trigger == "enter")
        #expect(warnings.first?.title == "Beware!")
        #expect(warnings.first?.body == "You are crossing the road!")
        #expect(p.counters.windowsScored > 30)
    }

    /// warning.messages: each warning takes the next body, so a user who
    /// lingers at the crossing does not read one sentence again and again.
    @Test func successiveWarningsTakeTheMessagesInTurn() {
        let p = HeadsUpPipeline(
            scorer: SignScorer(),
            configuration: .init(
                distraction: .init(timeConstant: 0.5, enterThreshold: 0.5, exitThreshold: 0.35, minimumDuration: 0.5),
                warning: .init(proximity: .far, checkInterval: 1, cooldown: 1, messages: ["Look up!", "Cars ahead!"]), regions: [crossing],
                monitor: .init(rule: .rssi(enter: -70, exit: -80), dwell: 0.5, exitTimeout: 3, filter: .arma(coefficient: 1))))
        let bodies = walk(p, motion: 1).map(\.body)
        #expect(bodies.count >= 3, "\(bodies)")
        #expect(bodies == (0..<bodies.count).map { $0 % 2 == 0 ? "Look up!" : "Cars ahead!" })
    }

    @Test func theSameWalkWithThePhonePocketedWarnsNever() {
        let p = pipeline()
        #expect(walk(p, motion: -1).isEmpty)
        #expect(p.counters.decisions >= 1, "the entry was still decided on, and logged")
    }

    @Test func aBacklogSkipsWindowsNotSamples() {
        let p = pipeline()
        let events = p.process(samples: grid(from: 500, seconds: 10, value: 1))
        #expect(p.counters.samples == 500)
        #expect(p.counters.windowsSkipped == 19 - 2)
        #expect(p.counters.windowsScored == 2)
        #expect(events.contains { if case .windowsSkipped(17, _) = $0 { true } else { false } })
    }

    /// Score windows one by one, as the live loop does (no backlog).
    func feed(_ p: HeadsUpPipeline, _ events: [ResampledEvent]) -> [PipelineEvent] {
        stride(from: 0, to: events.count, by: 25).flatMap { p.process(samples: Array(events[$0..<min($0 + 25, events.count)])) }
    }

    @Test func aNonFiniteSampleSkipsItsWindowsAndTheSmootherNeverSeesIt() {
        let p = pipeline()
        var events = grid(from: 0, seconds: 6, value: 1)
        for index in [100, 101, 102] {
            guard case .sample(var sample, let grid) = events[index] else { continue }
            sample.acceleration.x = index == 100 ? .nan : (index == 101 ? .infinity : 1e39)
            events[index] = .sample(sample, gridIndex: grid)
        }
        let output = feed(p, events)
        let unscored = output.filter { if case .windowUnscored(_, .nonFiniteSamples) = $0 { true } else { false } }
        // Windows of 50 every 25 samples: rows 100–102 are in two of them.
        #expect(unscored.count == 2)
        #expect(p.counters.windowsWithNonFiniteSamples == 2)
        #expect(p.tracker.smoothedScore?.isFinite == true)
        #expect(p.tracker.isDistracted)
        #expect(output.allSatisfy { if case .scored(let window) = $0 { window.score.isFinite && window.smoothed.isFinite } else { true } })
    }

    struct NaNScorer: WindowScorer {
        func score(_ window: MotionWindow) -> Double { window.startTime < 2 ? .nan : 0.95 }
    }

    @Test func aNonFiniteScoreIsSkippedAndCounted() {
        let p = HeadsUpPipeline(scorer: NaNScorer(), configuration: .init(distraction: .init(timeConstant: 0.5, minimumDuration: 0.5)))
        let output = feed(p, grid(from: 0, seconds: 6, value: 1))
        #expect(p.counters.windowsWithNonFiniteScore > 0)
        #expect(output.contains { if case .windowUnscored(_, .nonFiniteScore) = $0 { true } else { false } })
        #expect(p.tracker.smoothedScore == 0.95)
        #expect(p.tracker.isDistracted)
    }

    @Test func theTrackerIgnoresWhatIsNotFinite() {
        var tracker = DistractionTracker()
        _ = tracker.add(score: 0.2, at: 1)
        #expect(tracker.add(score: .nan, at: 2) == nil)
        #expect(tracker.add(score: .infinity, at: 3) == nil)
        #expect(tracker.add(score: 0.2, at: .nan) == nil)
        #expect(tracker.smoothedScore == 0.2)
    }
}
