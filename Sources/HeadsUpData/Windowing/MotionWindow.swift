/// One model input: `length` consecutive grid samples of the nine channels,
/// with when it started and what it was labelled.
public struct MotionWindow: Sendable, Equatable {
    /// Time of the first sample (seconds).
    public var startTime: Double
    /// Grid index of the first sample.
    public var startGridIndex: Int64
    public var length: Int
    /// `nil` for live data.
    public var label: ActivityLabel?
    /// True when every sample carried the same label.
    public var labelIsUniform: Bool
    /// Values stored channel-major, `channel × length + t`, as Float32, the
    /// precision the model runs in.
    public var channelMajorValues: [Float]

    public init(
        startTime: Double, startGridIndex: Int64, length: Int, label: ActivityLabel?, labelIsUniform: Bool,
        channelMajorValues: [Float]
    ) {
        precondition(channelMajorValues.count == length * SensorChannel.count)
        self.startTime = startTime
        self.startGridIndex = startGridIndex
        self.length = length
        self.label = label
        self.labelIsUniform = labelIsUniform
        self.channelMajorValues = channelMajorValues
    }

    public subscript(channel: SensorChannel, step: Int) -> Float {
        channelMajorValues[channel.rawValue * length + step]
    }

    /// The window as the model's input vector.
    public func flattened(_ layout: WindowLayout) -> [Float] {
        switch layout {
        case .channelMajor:
            return channelMajorValues
        case .timeMajor:
            let channels = SensorChannel.count
            return [Float](unsafeUninitializedCapacity: channelMajorValues.count) { output, count in
                for channel in 0..<channels {
                    for step in 0..<length {
                        output[step * channels + channel] = channelMajorValues[channel * length + step]
                    }
                }
                count = channelMajorValues.count
            }
        }
    }
}
