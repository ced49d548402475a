/// Cuts the resampler's grid into overlapping windows, one grid sample at a
/// time, never across a segment end (a gap) or a skipped grid index.
///
/// Within a segment the windows start at samples 0, hop, 2·hop, … and each
/// holds `length` consecutive samples, so a segment of n samples gives
/// ⌊(n − length) / hop⌋ + 1 windows.
public struct Windower: Sendable {
    public let configuration: WindowingConfiguration
    private var ring: [MotionSample]
    private var ringStart = 0
    private var samplesInSegment = 0
    private var lastGridIndex: Int64?

    public private(set) var windowCount = 0
    /// Windows left out by ``LabelPolicy/uniform``.
    public private(set) var mixedLabelWindowCount = 0

    public init(configuration: WindowingConfiguration = .init()) {
        self.configuration = configuration
        ring = []
        ring.reserveCapacity(configuration.length)
    }

    public mutating func push(_ event: ResampledEvent, emit: (MotionWindow) -> Void) {
        switch event {
        case .segmentEnd:
            resetSegment()
        case .sample(let sample, let gridIndex):
            if let lastGridIndex, gridIndex != lastGridIndex + 1 { resetSegment() }
            lastGridIndex = gridIndex
            append(sample)
            samplesInSegment += 1
            let past = samplesInSegment - configuration.length
            if past >= 0, past % configuration.hop == 0 {
                makeWindow(endingAt: gridIndex, emit: emit)
            }
        }
    }

    private mutating func resetSegment() {
        ringStart = 0
        samplesInSegment = 0
        lastGridIndex = nil
        ring.removeAll(keepingCapacity: true)
    }

    private mutating func append(_ sample: MotionSample) {
        if ring.count < configuration.length {
            ring.append(sample)
        } else {
            ring[ringStart] = sample
            ringStart = (ringStart + 1) % configuration.length
        }
    }

    private mutating func makeWindow(endingAt gridIndex: Int64, emit: (MotionWindow) -> Void) {
        let length = configuration.length
        var handsCount = 0
        var unlabelled = false
        var values = [Float](repeating: 0, count: length * SensorChannel.count)
        values.withUnsafeMutableBufferPointer { output in
            for step in 0..<length {
                let sample = ring[(ringStart + step) % length]
                switch sample.label {
                case .hands?: handsCount += 1
                case .pocket?: break
                case nil: unlabelled = true
                }
                for channel in SensorChannel.allCases {
                    output[channel.rawValue * length + step] = Float(sample[channel])
                }
            }
        }
        let first = ring[ringStart]
        let last = ring[(ringStart + length - 1) % length]
        let uniform = !unlabelled && (handsCount == 0 || handsCount == length)
        let label = unlabelled ? nil : ActivityLabel.majority(handsCount: handsCount, of: length, last: last.label)
        if configuration.labelPolicy == .uniform, !unlabelled, !uniform {
            mixedLabelWindowCount += 1
            return
        }
        windowCount += 1
        emit(
            MotionWindow(
                startTime: first.time, startGridIndex: gridIndex - Int64(length - 1), length: length,
                label: label, labelIsUniform: uniform, channelMajorValues: values))
    }
}
