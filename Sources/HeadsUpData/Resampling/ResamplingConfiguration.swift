/// How raw samples become a regular grid.
public struct ResamplingConfiguration: Sendable, Hashable {
    /// Output rate in Hz. The model was trained at 50.
    public var rate: Int
    /// A step between kept samples longer than this (seconds) is a gap:
    /// the stream is split there and nothing is interpolated across it.
    public var maximumGap: Double

    public init(rate: Int = 50, maximumGap: Double = 0.1) {
        self.rate = rate
        self.maximumGap = maximumGap
    }

    /// The grid point times are exactly `Double(index) / Double(rate)`,
    /// aligned to the clock's origin, so streams from different sensors
    /// land on the same instants.
    public func time(ofGridIndex index: Int64) -> Double { Double(index) / Double(rate) }

    /// Times beyond this (about 3 million years from 1970, in seconds) are
    /// no clock's: the resampler drops them rather than index a grid that far.
    public static let largestTime = 1e14

    /// The first grid index whose time is at or after `time`.
    public func firstGridIndex(atOrAfter time: Double) -> Int64 {
        var index = Int64((time * Double(rate)).rounded(.up))
        while self.time(ofGridIndex: index) < time { index += 1 }
        while self.time(ofGridIndex: index - 1) >= time { index -= 1 }
        return index
    }
}
