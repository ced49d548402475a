import Foundation
import HeadsUpData
import HeadsUpPipeline
import HeadsUpTestSupport
import Testing

/// Walking or still from the accelerometer's step periodicity, on synthetic
/// gaits (a bounce of the magnitude once a step, with noise), on motion as
/// large that does not repeat, and on the bundled walks.
@Suite("Walking detector")
struct WalkingDetectorTests {
    /// Uniform in [0, 1), deterministic.
    struct Random {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        mutating func gaussian() -> Double { (-2 * log(1 - next())).squareRoot() * cos(2 * .pi * next()) }
        mutating func direction() -> SIMD3<Double> {
            let v = SIMD3(gaussian(), gaussian(), gaussian())
            return v / (v * v).sum().squareRoot()
        }
    }

    /// Gravity as a phone held tilted towards the face sees it.
    static let held = SIMD3<Double>(0, -0.5, -0.866)

    static func samples(_ accelerations: [SIMD3<Double>]) -> [MotionSample] {
        accelerations.enumerated().map {
            MotionSample(time: Double($0.offset) / 50, acceleration: $0.element, rotationRate: .zero, magneticField: .zero)
        }
    }

    /// Band-limited noise: Gaussian noise through 4th-order Butterworth
    /// high- and low-passes at the ends of `band` (Hz), scaled to `sd` g.
    static func bandNoise(_ random: inout Random, count: Int, band: ClosedRange<Double>, sd: Double) -> [Double] {
        struct Biquad {
            var b: (Double, Double, Double), a: (Double, Double), x = (0.0, 0.0), y = (0.0, 0.0)
            init(cutoff: Double, q: Double, high: Bool) {
                let k = tan(.pi * cutoff / 50)
                let norm = 1 / (1 + k / q + k * k)
                b = high ? (norm, -2 * norm, norm) : (k * k * norm, 2 * k * k * norm, k * k * norm)
                a = (2 * (k * k - 1) * norm, (1 - k / q + k * k) * norm)
            }
            mutating func step(_ input: Double) -> Double {
                let output = b.0 * input + b.1 * x.0 + b.2 * x.1 - a.0 * y.0 - a.1 * y.1
                x = (input, x.0)
                y = (output, y.0)
                return output
            }
        }
        var stages = [0.5412, 1.3065].flatMap { q in
            [Biquad(cutoff: band.lowerBound, q: q, high: true), Biquad(cutoff: band.upperBound, q: q, high: false)]
        }
        let settle = 500
        let values = (0..<(count + settle)).map { _ in
            var value = random.gaussian()
            for stage in stages.indices { value = stages[stage].step(value) }
            return value
        }.dropFirst(settle)
        let deviation = (values.reduce(0) { $0 + $1 * $1 } / Double(count)).squareRoot()
        return values.map { $0 * sd / deviation }
    }

    /// A bus's vibration or a jiggled hand: noise of 0.5–5 Hz, `sd` g, along gravity and across it.
    static func shaking(seconds: Double, sd: Double, seed: UInt64) -> [MotionSample] {
        var random = Random(state: seed)
        let count = Int(seconds * 50)
        let along = bandNoise(&random, count: count, band: 0.5...5, sd: sd)
        let across = bandNoise(&random, count: count, band: 0.5...5, sd: sd / 2)
        return samples((0..<count).map { held * (1 + along[$0]) + SIMD3(across[$0], 0, 0) })
    }

    /// Fidgeting: jerks of 0.1–0.4 s (a push and a pull) in random directions at random times, `perSecond` on average.
    static func fidgeting(seconds: Double, perSecond: Double, size: Double, seed: UInt64) -> [MotionSample] {
        var random = Random(state: seed)
        let count = Int(seconds * 50)
        var accelerations = (0..<count).map { _ in held + 0.01 * SIMD3(random.gaussian(), random.gaussian(), random.gaussian()) }
        var start = 0.0
        while true {
            start += -log(1 - random.next()) * 50 / perSecond
            guard Int(start) < count else { break }
            let width = 5 + Int(random.next() * 15)
            let push = size * (0.3 + 0.7 * random.next()) * random.direction()
            for offset in 0..<min(width, count - Int(start)) {
                accelerations[Int(start) + offset] += sin(2 * .pi * Double(offset) / Double(width)) * push
            }
        }
        return samples(accelerations)
    }

    /// Turning the phone over in the hand: gravity's direction on a random walk
    /// (about `speed` rad/s) and the hand's own jiggle of `jiggle` g.
    static func turning(seconds: Double, speed: Double, jiggle: Double, seed: UInt64) -> [MotionSample] {
        var random = Random(state: seed)
        let count = Int(seconds * 50)
        let hand = (0..<3).map { _ in bandNoise(&random, count: count, band: 0.5...5, sd: jiggle) }
        var gravity = held
        var spin = SIMD3<Double>.zero
        return samples(
            (0..<count).map { index in
                spin = 0.98 * spin + 0.2 * speed * SIMD3(random.gaussian(), random.gaussian(), random.gaussian())
                // Rotate by spin / 50 (small angle): g += ω × g dt, kept a unit vector.
                let w = spin / 50
                gravity += SIMD3(w.y * gravity.z - w.z * gravity.y, w.z * gravity.x - w.x * gravity.z, w.x * gravity.y - w.y * gravity.x)
                gravity /= (gravity * gravity).sum().squareRoot()
                return gravity + SIMD3(hand[0][index], hand[1][index], hand[2][index])
            })
    }

    /// Standard deviation of the acceleration's magnitude (g): the old rule called 0.04 walking.
    static func variation(_ samples: [MotionSample]) -> Double {
        let magnitudes = samples.map { ($0.acceleration * $0.acceleration).sum().squareRoot() }
        let mean = magnitudes.reduce(0, +) / Double(magnitudes.count)
        return (magnitudes.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(magnitudes.count)).squareRoot()
    }

    /// The share of samples after the first `settle` seconds at which the detector said walking.
    static func walkingShare(_ samples: [MotionSample], settle: Double = 6) -> Double {
        var detector = WalkingDetector()
        var walking = 0
        var judged = 0
        for sample in samples {
            _ = detector.push(sample)
            guard sample.time >= settle else { continue }
            judged += 1
            if detector.isWalking { walking += 1 }
        }
        return Double(walking) / Double(max(judged, 1))
    }

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

    /// One damaged row (acc_y 1e25 g) rang the band-pass for tens of seconds, and a crossing went unwarned.
    @Test(arguments: [1e20, 1e25, 1e300])
    func oneAbsurdSampleDoesNotStopTheWalkForLong(spike: Double) {
        var samples = Self.gait(cadence: 1.8, amplitude: 0.25, seconds: 20)
        samples[500].acceleration.y = spike
        #expect(Self.finalState(samples).walking, "walking 10 s after a sample of \(spike) g")
        #expect(Self.finalState(Array(samples.prefix(750))).walking, "walking 5 s after it")
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

    @Test(arguments: [1.4, 1.8, 2.4])
    func aFaintGaitIsWalking(cadence: Double) {
        let samples = Self.gait(cadence: cadence, amplitude: 0.05, seconds: 30, seed: 7)
        #expect(Self.walkingShare(samples) > 0.95)
    }

    /// Motion as large as a walk's that does not repeat is not walking (the
    /// old rule, 0.04 g of variation, called all of it walking). Noise can
    /// look periodic for a while by chance: at most a few seconds a minute.
    @Test(arguments: [UInt64(1), 2, 3])
    func motionThatDoesNotRepeatIsNotWalking(seed: UInt64) {
        let cases: [(String, [MotionSample])] = [
            ("fidgeting, 3 jerks/s of up to 0.5 g", Self.fidgeting(seconds: 60, perSecond: 3, size: 0.5, seed: seed)),
            ("fidgeting, 1.5 jerks/s of up to 0.4 g", Self.fidgeting(seconds: 60, perSecond: 1.5, size: 0.4, seed: seed)),
            ("shaking, 0.5–5 Hz, 0.05 g", Self.shaking(seconds: 60, sd: 0.05, seed: seed)),
            ("shaking, 0.5–5 Hz, 0.2 g", Self.shaking(seconds: 60, sd: 0.2, seed: seed)),
            ("turning the phone, 0.5 rad/s", Self.turning(seconds: 60, speed: 0.5, jiggle: 0.05, seed: seed)),
            ("turning the phone, 2 rad/s", Self.turning(seconds: 60, speed: 2, jiggle: 0.05, seed: seed)),
        ]
        for (name, samples) in cases {
            #expect(Self.variation(samples) >= 0.04, "\(name): as much motion as the old rule's walking")
            let share = Self.walkingShare(samples)
            #expect(share < 0.1, "\(name): walking \(share)")
        }
    }

    /// Fidgeting after a walk (stopping at the kerb, phone in hand) ends walking once the evidence drains: within 15 s.
    @Test func fidgetingAfterAWalkEndsWalking() {
        var detector = WalkingDetector()
        for sample in Self.gait(cadence: 1.8, amplitude: 0.25, seconds: 20) { _ = detector.push(sample) }
        #expect(detector.isWalking)
        var stoppedAt: Double?
        for sample in Self.fidgeting(seconds: 30, perSecond: 3, size: 0.5, seed: 4) {
            let shifted = MotionSample(time: sample.time + 20, acceleration: sample.acceleration, rotationRate: .zero, magneticField: .zero)
            if detector.push(shifted) == false, stoppedAt == nil { stoppedAt = sample.time }
        }
        #expect((stoppedAt ?? .infinity) <= 15, "still after \(stoppedAt ?? -1) s")
    }

    static let scenarios =
        (try? FileManager.default.contentsOfDirectory(atPath: TestEnvironment.path("datasets/scenarios")))?
        .filter { FileManager.default.fileExists(atPath: TestEnvironment.path("datasets/scenarios/\($0)/session.csv")) }.sorted() ?? []

    @Test func theBundledScenariosAreFound() {
        #expect(Self.scenarios.contains("crossing-hands") && Self.scenarios.contains("crossing-pocket"), "\(Self.scenarios)")
    }

    /// Every bundled walk, hands or pocket, is walking in its steady part: 6 s
    /// from either end of each stretch between gaps (the phone going into or out
    /// of a pocket, the window filling), as the pipeline runs it (reset at gaps).
    @Test(arguments: scenarios)
    func everyBundledWalkIsWalking(scenario: String) throws {
        let reader = try SessionCSVReader(path: TestEnvironment.path("datasets/scenarios/\(scenario)/session.csv"))
        var resampler = Resampler()
        var detector = WalkingDetector()
        var segments: [[(time: Double, walking: Bool)]] = [[]]
        func handle(_ event: ResampledEvent) {
            switch event {
            case .sample(let grid, _):
                _ = detector.push(grid)
                segments[segments.count - 1].append((grid.time, detector.isWalking))
            case .segmentEnd:
                detector.reset()
                segments.append([])
            }
        }
        while let sample = try reader.next() { resampler.push(sample, emit: handle) }
        resampler.finish(emit: handle)
        let steady = segments.flatMap { segment in
            segment.filter { $0.time - (segment.first?.time ?? 0) >= 6 && (segment.last?.time ?? 0) - $0.time >= 6 }
        }
        #expect(steady.count > 50 * 30, "\(scenario): \(steady.count) steady samples")
        let share = Double(steady.filter(\.walking).count) / Double(max(steady.count, 1))
        #expect(share >= 0.9, "\(scenario): walking \(share)")
    }
}
