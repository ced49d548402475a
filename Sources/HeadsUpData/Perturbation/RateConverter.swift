/// A recording as a device sampling at another rate would have given it:
/// samples at origin + k / rate, linearly interpolated between the recorded
/// ones (``MotionSample/interpolate(_:_:at:)``). Pure and streaming, one
/// sample in, zero or more out.
///
/// A step longer than `maximumGap` is a gap the recording had: the new grid
/// restarts after it rather than inventing samples across it, so the
/// resampler downstream still sees the gap. Times that do not go forward
/// are dropped here (the resampler would drop them too).
public struct RateConverter: Sendable {
    public let rate: Double
    public let maximumGap: Double
    private var previous: MotionSample?
    private var origin = 0.0
    private var next: Int64 = 0

    public init(rate: Double, maximumGap: Double = ResamplingConfiguration().maximumGap) {
        precondition(rate > 0 && rate.isFinite, "RateConverter needs a positive rate")
        self.rate = rate
        self.maximumGap = maximumGap
    }

    private func time(_ k: Int64) -> Double { origin + Double(k) / rate }

    /// The converted samples that `sample` completes.
    public mutating func push(_ sample: MotionSample, emit: (MotionSample) -> Void) {
        guard sample.time.isFinite else { return }
        guard let a = previous else {
            start(at: sample, emit: emit)
            return
        }
        guard sample.time > a.time else { return }
        if sample.time - a.time > maximumGap {
            start(at: sample, emit: emit)
            return
        }
        while time(next) <= sample.time {
            let t = time(next)
            emit(t == sample.time ? sample : MotionSample.interpolate(a, sample, at: t))
            next += 1
        }
        previous = sample
    }

    private mutating func start(at sample: MotionSample, emit: (MotionSample) -> Void) {
        origin = sample.time
        next = 1
        previous = sample
        emit(sample)
    }
}
