import HeadsUpData
import Testing

/// Grid samples at 50 Hz from `startIndex`, channel c holding 100·c + step.
func gridEvents(count: Int, startIndex: Int64 = 1000, labels: (Int) -> ActivityLabel? = { _ in .hands }) -> [ResampledEvent] {
    (0..<count).map { step in
        let index = startIndex + Int64(step)
        let v = Double(step)
        let s = MotionSample(
            time: Double(index) / 50, acceleration: SIMD3(v, 100 + v, 200 + v), rotationRate: SIMD3(300 + v, 400 + v, 500 + v),
            magneticField: SIMD3(600 + v, 700 + v, 800 + v), label: labels(step))
        return .sample(s, gridIndex: index)
    }
}

func windows(_ events: [ResampledEvent], _ configuration: WindowingConfiguration = .init()) -> (windows: [MotionWindow], windower: Windower) {
    var windower = Windower(configuration: configuration)
    var result: [MotionWindow] = []
    for event in events { windower.push(event) { result.append($0) } }
    return (result, windower)
}

@Suite("Windower")
struct WindowerTests {
    @Test(arguments: [(50, 25, 200, 7), (50, 50, 200, 4), (50, 1, 60, 11), (50, 25, 49, 0), (50, 25, 50, 1)])
    func windowCountFollowsLengthAndHop(length: Int, hop: Int, samples: Int, expected: Int) {
        let (result, windower) = windows(gridEvents(count: samples), .init(length: length, hop: hop))
        #expect(result.count == expected)
        #expect(windower.windowCount == expected)
        #expect(result.map(\.startGridIndex) == (0..<expected).map { 1000 + Int64($0 * hop) })
    }

    @Test func channelMajorAndTimeMajorFlattening() throws {
        let (result, _) = windows(gridEvents(count: 60), .init(hop: 10))
        let second = try #require(result.dropFirst().first)  // starts at step 10
        let channelMajor = second.flattened(.channelMajor)
        let timeMajor = second.flattened(.timeMajor)
        #expect(channelMajor.count == 450 && timeMajor.count == 450)
        for channel in 0..<9 {
            for t in 0..<50 {
                let expected = Float(100 * channel + 10 + t)
                #expect(channelMajor[channel * 50 + t] == expected)
                #expect(timeMajor[t * 9 + channel] == expected)
            }
        }
        #expect(second[.rotationRateY, 3] == 413)
        #expect(second.startTime == 1010.0 / 50)
    }

    @Test func neverSpansASegmentEnd() {
        let events = gridEvents(count: 40) + [.segmentEnd] + gridEvents(count: 60, startIndex: 2000)
        let (result, _) = windows(events)
        #expect(result.count == 1)
        #expect(result[0].startGridIndex == 2000)
    }

    @Test func aSkippedGridIndexAlsoStartsAfresh() {
        let events = gridEvents(count: 45) + gridEvents(count: 50, startIndex: 1046)
        let (result, _) = windows(events)
        #expect(result.map(\.startGridIndex) == [1046])
    }

    @Test func majorityLabelWithTieToTheLastSample() {
        let mostlyHands = windows(gridEvents(count: 50, labels: { $0 < 20 ? .pocket : .hands })).windows[0]
        #expect(mostlyHands.label == .hands)
        #expect(!mostlyHands.labelIsUniform)
        let tieEndingPocket = windows(gridEvents(count: 50, labels: { $0 < 25 ? .hands : .pocket })).windows[0]
        #expect(tieEndingPocket.label == .pocket)
        let tieEndingHands = windows(gridEvents(count: 50, labels: { $0 < 25 ? .pocket : .hands })).windows[0]
        #expect(tieEndingHands.label == .hands)
        let pure = windows(gridEvents(count: 50, labels: { _ in .pocket })).windows[0]
        #expect(pure.label == .pocket && pure.labelIsUniform)
    }

    @Test func uniformPolicyDropsMixedWindowsAndCountsThem() {
        // Label switches at step 60: windows starting at 25 and 50 mix labels.
        let events = gridEvents(count: 150, labels: { $0 < 60 ? .pocket : .hands })
        let majority = windows(events).windows
        #expect(majority.count == 5)
        let (uniform, windower) = windows(events, .init(labelPolicy: .uniform))
        #expect(uniform.map(\.startGridIndex) == [1000, 1075, 1100])
        #expect(uniform.map(\.label) == [.pocket, .hands, .hands])
        #expect(windower.mixedLabelWindowCount == 2)
    }

    @Test func liveDataHasNoLabel() {
        let live = windows(gridEvents(count: 50, labels: { _ in nil }), .init(labelPolicy: .uniform)).windows
        #expect(live.count == 1)
        #expect(live[0].label == nil)
    }
}
