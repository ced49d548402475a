import Foundation
import HeadsUpData
import Testing

/// A sample whose nine channels are f(t) + channel offset.
func sample(_ time: Double, label: ActivityLabel? = .hands, _ value: (Double) -> Double = { $0 }) -> MotionSample {
    let v = value(time)
    return MotionSample(
        time: time, acceleration: SIMD3(v, v + 1, v + 2), rotationRate: SIMD3(v + 3, v + 4, v + 5),
        magneticField: SIMD3(v + 6, v + 7, v + 8), label: label)
}

/// Runs samples through a resampler and returns its events.
func resample(_ samples: [MotionSample], configuration: ResamplingConfiguration = .init()) -> (events: [ResampledEvent], resampler: Resampler) {
    var resampler = Resampler(configuration: configuration)
    var events: [ResampledEvent] = []
    for s in samples { resampler.push(s) { events.append($0) } }
    resampler.finish { events.append($0) }
    return (events, resampler)
}

extension ResampledEvent {
    var sample: MotionSample? {
        if case .sample(let s, _) = self { return s }
        return nil
    }
    var gridIndex: Int64? {
        if case .sample(_, let index) = self { return index }
        return nil
    }
}

@Suite("Resampler")
struct ResamplerTests {
    @Test func aLineResampledIsTheSameLine() {
        // 100 Hz with jittered times, values on a line: every grid value lies on it.
        let times: [Double] = (0..<500).map { index in
            let jitter = index % 3 == 0 ? 0.002 : -0.001
            return 1000.0 + Double(index) / 100 + jitter
        }
        let line: (Double) -> Double = { 3 * ($0 - 1000) - 7 }
        let (events, resampler) = resample(times.map { sample($0, line) })
        let grid = events.compactMap { $0.sample }
        #expect(grid.count == resampler.outputCount)
        #expect(grid.count == 249)  // 1000.02 … 1004.98: first sample 1000.002, last 1004.989
        for point in grid {
            #expect(abs(point.acceleration.x - line(point.time)) < 1e-9)
            #expect(abs(point.magneticField.z - (line(point.time) + 8)) < 1e-9)
        }
        #expect(resampler.segmentCount == 1)
        #expect(resampler.droppedCount == 0)
    }

    @Test func gridIsExactlyFiftyHertzAndAlignedToTheClock() {
        let (events, _) = resample((0..<300).map { sample(5.003 + Double($0) / 104) })
        let indices = events.compactMap(\.gridIndex)
        let times = events.compactMap(\.sample?.time)
        #expect(indices.first == 251)  // first grid point at or after 5.003 s is 5.02 s
        #expect(zip(indices, indices.dropFirst()).allSatisfy { $1 == $0 + 1 })
        #expect(zip(indices, times).allSatisfy { Double($0) / 50 == $1 })
        #expect(times.first == 5.02)
        #expect(times.last! <= 5.003 + 299.0 / 104)
    }

    @Test(arguments: [52.0, 104.0, 99.6])
    func aSineKeepsItsAmplitude(rate: Double) {
        // 1.3 Hz sine, amplitude 2 (the motion band): resampled to 50 Hz it
        // keeps amplitude and phase within linear-interpolation error.
        let sine: (Double) -> Double = { 2 * sin(2 * .pi * 1.3 * $0) }
        let (events, _) = resample((0..<Int(rate * 20)).map { sample(100 + Double($0) / rate, sine) })
        let grid = events.compactMap(\.sample)
        #expect(abs(Double(grid.count) - 50 * 20) <= 1)
        let peak = grid.map { abs($0.acceleration.x) }.max()!
        #expect(abs(peak - 2) < 0.01)
        let worst = grid.map { abs($0.acceleration.x - sine($0.time)) }.max()!
        let bound = 2 * pow(2 * .pi * 1.3 / rate, 2) / 8  // |f''| max · h² / 8
        #expect(worst <= bound * 1.01)
    }

    @Test func backwardsAndRepeatedTimestampsAreDroppedAndCounted() {
        let times = [10.00, 10.01, 10.005, 10.01, 10.02, 10.015, 10.03, 10.04]
        let (events, resampler) = resample(times.map { sample($0) })
        #expect(resampler.droppedCount == 3)
        #expect(resampler.inputCount == 8)
        #expect(events.compactMap(\.sample).map(\.time) == [10.0, 10.02, 10.04])
    }

    @Test func anEarlyOutlierDoesNotPullTimeBack() {
        // A sample from the future is kept; everything before it is dropped until time passes it.
        let times = [1.00, 1.01, 1.02, 1.09, 1.03, 1.04, 1.10, 1.11]
        let (_, resampler) = resample(times.map { sample($0) })
        #expect(resampler.droppedCount == 2)
    }

    @Test func aGapSplitsTheStreamAndIsNeverInterpolated() {
        let before = (0..<50).map { sample(20 + Double($0) / 100, { _ in 1 }) }
        let after = (0..<50).map { sample(20.6 + Double($0) / 100, { _ in 5 }) }
        let (events, resampler) = resample(before + after)
        #expect(resampler.segmentCount == 2)
        #expect(resampler.gapCount == 1)
        let ends = events.enumerated().filter { $0.element == .segmentEnd }.map(\.offset)
        #expect(ends.count == 2)
        let firstSegment = events[..<ends[0]].compactMap(\.sample)
        let secondSegment = events[ends[0]...].compactMap(\.sample)
        #expect(firstSegment.allSatisfy { $0.acceleration.x == 1 && $0.time <= 20.49 })
        #expect(secondSegment.allSatisfy { $0.acceleration.x == 5 && $0.time >= 20.6 })
        #expect(secondSegment.first?.time == 20.6)
    }

    @Test func gapLimitIsConfigurable() {
        let times = [0.0, 0.01, 0.02, 0.17, 0.18]
        #expect(resample(times.map { sample($0) }).resampler.segmentCount == 2)
        #expect(resample(times.map { sample($0) }, configuration: .init(maximumGap: 0.2)).resampler.segmentCount == 1)
    }

    @Test func labelComesFromTheNearerSample() {
        let (events, _) = resample([sample(1.000, label: .pocket), sample(1.015, label: .hands), sample(1.041, label: .hands)])
        let grid = events.compactMap(\.sample)
        #expect(grid.map(\.time) == [1.0, 1.02, 1.04])
        #expect(grid.map(\.label) == [.pocket, .hands, .hands])
    }

    @Test func firstGridIndexIsExactAtBoundaries() {
        let configuration = ResamplingConfiguration()
        for index in [Int64(0), 1, 77_966_000_000, 77_966_168_896] {
            let time = configuration.time(ofGridIndex: index)
            #expect(configuration.firstGridIndex(atOrAfter: time) == index)
            #expect(configuration.firstGridIndex(atOrAfter: time.nextUp) == index + 1)
            #expect(configuration.firstGridIndex(atOrAfter: time.nextDown) == index)
        }
    }

    /// Found by the session-csv fuzzer: a damaged row's timestamp of 1.6e19 s
    /// made the grid index overflow and trap. Such a sample is dropped.
    @Test func aTimeNoClockGivesIsDroppedNotATrap() {
        var resampler = Resampler()
        var emitted = 0
        for time in [1.0, 1.02, 15_597_041_559_230_000_746.9, 1.04, -1e300, 1.06] {
            resampler.push(MotionSample(time: time, acceleration: .zero, rotationRate: .zero, magneticField: .zero)) { _ in emitted += 1 }
        }
        #expect(resampler.droppedCount == 2)
        #expect(emitted == 4)
    }
}
