import Foundation
import HeadsUpData
import HeadsUpPipeline
import HeadsUpRuntime
import HeadsUpSystem
import Testing

/// The terminal view of `headsup live`: what the user reads about their motion.
@Suite("Status screen")
struct StatusScreenTests {
    struct Constant: WindowScorer {
        func score(_ window: MotionWindow) -> Double { 0.9 }
    }

    struct FixedClock: WallClock {
        func secondsSince1970() -> Double { 1_764_000_000 }
    }

    /// Ten seconds at 50 Hz: a bounce of 0.25 g at 1.8 steps a second, or none.
    func pipeline(walking: Bool) -> HeadsUpPipeline {
        let pipeline = HeadsUpPipeline(scorer: Constant(), configuration: .init())
        let events: [ResampledEvent] = (0..<500).map { index in
            let time = Double(index) / 50
            let bounce = walking ? 0.25 * sin(2 * .pi * 1.8 * time) : 0
            let sample = MotionSample(time: time, acceleration: SIMD3(0, 0, -1 - bounce), rotationRate: .zero, magneticField: .zero)
            return .sample(sample, gridIndex: Int64(index))
        }
        _ = pipeline.process(samples: events)
        return pipeline
    }

    @Test func itSaysWhetherTheUserWalksAndAtWhatCadence() throws {
        let screen = StatusScreen(clock: FixedClock())
        let walking = screen.render(pipeline: pipeline(walking: true), sensors: [:], beacons: [], regions: [])
        let motion = try #require(walking.split(separator: "\n").first { $0.hasPrefix("motion") })
        #expect(motion.contains("walking (1.8 steps/s); warnings only while walking"), "\(motion)")
        let still = screen.render(pipeline: pipeline(walking: false), sensors: [:], beacons: [], regions: [])
        #expect(still.contains("motion    still; warnings only while walking"), "\(still)")
        #expect(still.contains("DISTRACTED (phone in the hands)"))
    }

    @Test func itSaysWhetherThePhoneIsInUse() {
        let screen = StatusScreen(clock: FixedClock())
        let pipeline = pipeline(walking: true)
        #expect(
            screen.render(pipeline: pipeline, sensors: [:], beacons: [], regions: []).contains(
                "screen    unknown; warnings only while the phone is in use"))
        _ = pipeline.process(screen: .locked, at: 10)
        #expect(
            screen.render(pipeline: pipeline, sensors: [:], beacons: [], regions: []).contains(
                "screen    locked; warnings only while the phone is in use"))
        let ungated = HeadsUpPipeline(scorer: Constant(), configuration: .init(warning: .init(onlyWhileScreenOn: .off)))
        let line = screen.render(pipeline: ungated, sensors: [:], beacons: [], regions: []).split(separator: "\n").first { $0.hasPrefix("screen") }
        #expect(line == "screen    unknown")
    }
}
