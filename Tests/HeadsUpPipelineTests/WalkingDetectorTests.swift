import Foundation
import HeadsUpData
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

/// Walking or still from the accelerometer, on synthetic gaits (a bounce of
/// the magnitude once a step, with noise) and on the bundled walks.
@Suite("Walking detector")
struct WalkingDetectorTests {
    /// `seconds` of 50 Hz samples: gravity on −z, a bounce of `amplitude` g at `cadence` steps/s, and noise.
    static func gait(cadence: Double, amplitude: Double, seconds: Double, noise: Double = 0.02, seed: UInt64 = 1) -> [MotionSample] {
        var state = seed
        func random() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53) - 0.5
        }
        return (0..<Int(seconds * 50)).map { index in
            let t = Double(index) / 50
            let bounce = amplitude * sin(2 * .pi * cadence * t) + 0.3 * amplitude * sin(4 * .pi * cadence * t + 1)
            let sway = 0.1 * amplitude * sin(.pi * cadence * t)
            return MotionSample(
                time: t, acceleration: SIMD3(sway + noise * random(), noise * random(), -1 - bounce + noise * random()),
                rotationRate: .zero, magneticField: .zero)
        }
    }

    static func finalState(_ samples: [MotionSample]) -> (walking: Bool, cadence: Double?) {
        var detector = WalkingDetector()
        for sample in samples { _ = detector.push(sample) }
        return (detector.isWalking, detector.cadence)
    }

    @Test(arguments: [1.4, 1.8, 2.0, 2.4])
    func aGaitIsWalkingAtItsCadence(cadence: Double) throws {
        let state = Self.finalState(Self.gait(cadence: cadence, amplitude: 0.25, seconds: 10))
        #expect(state.walking)
        let measured = try #require(state.cadence)
        #expect(abs(measured - cadence) / cadence < 0.08, "measured \(measured) steps/s for \(cadence)")
    }

    @Test func standingStillOrLyingOnATableIsNotWalking() {
        #expect(!Self.finalState(Self.gait(cadence: 1.8, amplitude: 0, seconds: 10, noise: 0.01)).walking, "hand tremor only")
        #expect(!Self.finalState(Self.gait(cadence: 1.8, amplitude: 0, seconds: 10, noise: 0)).walking, "on a table")
    }

    @Test func stoppingEndsWalkingWithinAFewSeconds() {
        var detector = WalkingDetector()
        for sample in Self.gait(cadence: 1.8, amplitude: 0.25, seconds: 8) { _ = detector.push(sample) }
        #expect(detector.isWalking)
        var stoppedAt: Double?
        for sample in Self.gait(cadence: 1.8, amplitude: 0, seconds: 8, noise: 0.005) {
            if detector.push(MotionSample(time: sample.time + 8, acceleration: sample.acceleration, rotationRate: .zero, magneticField: .zero))
                == false
            {
                stoppedAt = sample.time
            }
        }
        #expect(!detector.isWalking)
        #expect((stoppedAt ?? .infinity) <= 5, "still after \(stoppedAt ?? -1) s")
    }

    /// The bundled hands walk (a held phone, weak bounce) is walking throughout its steady part.
    @Test func theBundledHandsWalkIsWalking() throws {
        let reader = try SessionCSVReader(path: TestEnvironment.path("datasets/scenarios/crossing-hands/session.csv"))
        var resampler = Resampler()
        var detector = WalkingDetector()
        var judged: [(time: Double, walking: Bool)] = []
        while let sample = try reader.next() {
            resampler.push(sample) { event in
                if case .sample(let grid, _) = event {
                    _ = detector.push(grid)
                    judged.append((grid.time, detector.isWalking))
                }
            }
        }
        let start = try #require(judged.first?.time)
        let steady = judged.filter { $0.time - start > 6 }
        #expect(Double(steady.filter(\.walking).count) / Double(steady.count) > 0.95)
    }
}
