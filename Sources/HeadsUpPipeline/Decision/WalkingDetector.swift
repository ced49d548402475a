import HeadsUpData

/// How walking is told from standing still (``WalkingDetector`` says how;
/// docs/notes/2026-11-26-walking-gate.md has the figures behind each value).
public struct WalkingConfiguration: Sendable, Equatable, Codable {
    /// Seconds of acceleration each judgement looks at: two strides of a slow walk.
    public var window: Double
    /// Step rates (Hz) that count as walking: people step 1.4–2.4 times a
    /// second. The motion may repeat once a step or once a stride (two
    /// steps, the pocket's left-right pattern), so periods from one step at
    /// the highest rate to one stride at the lowest are searched.
    public var cadence: ClosedRange<Double>
    /// The band (Hz) the signals are filtered to before their periodicity is
    /// measured: above the drift of a turning hand, below the heel strikes
    /// whose jittery spikes would hide the rhythm.
    public var band: ClosedRange<Double>
    /// The bar: the normalized autocorrelation at the best period that
    /// walking beats on average, and non-periodic motion does not.
    public var minimumCorrelation: Double
    /// How much more an axis must correlate than the magnitude to count:
    /// three more chances of a chance peak.
    public var axisMargin: Double
    /// How far (the distance between unit vectors, 0.25 ≈ 14°) the
    /// one-second means of gravity's direction may stray from their mean for
    /// the axes to count: when the phone turns, an axis sees gravity move.
    public var gravityWander: Double
    /// The correlation above the bar, summed over judgements (and less what
    /// fell short), from which the user walks; the sum is kept between 0 and
    /// twice this, which bounds how long it takes to fall back.
    public var evidence: Double
    /// Standard deviation (g) of the filtered magnitude over the last
    /// `motionWindow` seconds below which the user is still whatever the
    /// periodicity: a phone on a table or in a still hand.
    public var minimumVariation: Double
    /// Seconds of the latest motion `minimumVariation` looks at.
    public var motionWindow: Double

    public init(
        window: Double = 5, cadence: ClosedRange<Double> = 1.2...2.6, band: ClosedRange<Double> = 0.6...2.0, minimumCorrelation: Double = 0.38,
        axisMargin: Double = 0.1, gravityWander: Double = 0.25, evidence: Double = 0.75, minimumVariation: Double = 0.015, motionWindow: Double = 2
    ) {
        self.window = window
        self.cadence = cadence
        self.band = band
        self.minimumCorrelation = minimumCorrelation
        self.axisMargin = axisMargin
        self.gravityWander = gravityWander
        self.evidence = evidence
        self.minimumVariation = minimumVariation
        self.motionWindow = motionWindow
    }
}

/// Walking or still, from the accelerometer's step periodicity.
///
/// Walking repeats: the body bounces once a step, a pocket swings once a
/// stride. Fidgeting with the phone, a bus's vibration or turning the phone
/// in the hand move it as much but do not repeat, and the gate exists so
/// that a user standing by a beacon is not warned; so the rhythm decides,
/// not the amount of motion.
///
/// Each sample's acceleration magnitude and its three axes are band-passed
/// (`band`). Every half second the detector takes the last `window` seconds
/// and finds, for each signal, the highest peak of its normalized
/// autocorrelation among the periods of a step or a stride (`cadence`): the
/// judgement's periodicity is the magnitude's, or an axis's less
/// `axisMargin` while gravity's direction holds (`gravityWander`; a held
/// phone's sway shows on an axis more than on the magnitude).
///
/// One window is not enough: the bundled walks bounce weakly (the scenarios'
/// periodicity is 0.3–0.6, mean 0.45), and in five seconds band-limited
/// noise, fidgets or a turning phone reach 0.15–0.4 by chance (mean 0.27).
/// The means differ, so the periodicity is summed as evidence, each
/// judgement less the bar (`minimumCorrelation`), kept between 0 and twice
/// `evidence`; the user walks from `evidence` on. A clear gait (0.8) walks
/// about 3 s after the first step, a weak one a few seconds later; motion
/// that does not repeat falls back within 15 s (8.5–11 s in the synthetic runs), and
/// less than `minimumVariation` of motion (a phone put down, a still hand)
/// is still within about 3 s. The state changes after two judgements agree.
///
/// Pure: 50 Hz samples in, no clock. The buffers are made once and reused; a
/// judgement is about 55,000 multiply-adds (four signals, 250 samples, 68
/// lags). The figures: docs/notes/2026-11-26-walking-gate.md.
public struct WalkingDetector: Sendable {
    public let configuration: WalkingConfiguration
    public let rate: Int
    /// The band-passed magnitude and axes, channel by channel, each a ring of `count`.
    private var filtered: [Double]
    /// The raw acceleration, a ring of `count`, for gravity's direction.
    private var raw: [SIMD3<Double>]
    /// One channel oldest first, centred (reused by every judgement).
    private var scratch: [Double]
    private var filters: [BandPass]
    private let count: Int
    private var next = 0
    private var filled = 0
    private var sinceJudgement = 0
    private var disagreements = 0
    private var accumulated = 0.0
    public private(set) var isWalking = false
    /// Steps per second at the latest judgement that found a period above the bar.
    public private(set) var cadence: Double?

    private static let channels = 4
    /// A phone accelerometer's largest full scale, in g: a real reading saturates here.
    static let largestAcceleration = 16.0
    private var lastPlausible = SIMD3<Double>(0, 0, -1)

    public init(configuration: WalkingConfiguration = .init(), rate: Int = 50) {
        self.configuration = configuration
        self.rate = rate
        count = max(8, Int(configuration.window * Double(rate)))
        filtered = [Double](repeating: 0, count: count * Self.channels)
        raw = [SIMD3<Double>](repeating: .zero, count: count)
        scratch = [Double](repeating: 0, count: count)
        let filter = BandPass(band: configuration.band, rate: Double(rate))
        filters = [BandPass](repeating: filter, count: Self.channels)
    }

    /// Forgets the recent motion (a gap in the stream).
    public mutating func reset() {
        filled = 0
        next = 0
        sinceJudgement = 0
        disagreements = 0
        accumulated = 0
        isWalking = false
        cadence = nil
        for channel in filters.indices { filters[channel].reset() }
    }

    /// Feeds one sample; returns the new state when it changes.
    public mutating func push(_ sample: MotionSample) -> Bool? {
        // A reading beyond any accelerometer's full scale is a damaged row, not motion: the last
        // plausible one stands in for it (even clamped, one such impulse rang the band-pass for 15 s).
        let limit = SIMD3(repeating: Self.largestAcceleration)
        let plausible = all(sample.acceleration .<= limit .& sample.acceleration .>= -limit)
        let a = plausible ? sample.acceleration : lastPlausible
        if plausible { lastPlausible = a }
        let values = ((a * a).sum().squareRoot(), a.x, a.y, a.z)
        filtered[next] = filters[0].step(values.0)
        filtered[count + next] = filters[1].step(values.1)
        filtered[2 * count + next] = filters[2].step(values.2)
        filtered[3 * count + next] = filters[3].step(values.3)
        raw[next] = a
        next = (next + 1) % count
        filled = min(filled + 1, count)
        sinceJudgement += 1
        guard filled == count, sinceJudgement >= rate / 2 else { return nil }
        sinceJudgement = 0
        let judged = judge()
        guard judged != isWalking else {
            disagreements = 0
            return nil
        }
        disagreements += 1
        guard disagreements >= 2 else { return nil }
        disagreements = 0
        isWalking = judged
        return judged
    }

    /// Periodic enough for long enough, and moving at all.
    private mutating func judge() -> Bool {
        let shortest = max(1, Int((Double(rate) / configuration.cadence.upperBound).rounded(.down)))
        let longest = max(shortest, min(count / 2, Int((2 * Double(rate) / configuration.cadence.lowerBound).rounded(.up))))
        var best = periodicity(channel: 0, shortest: shortest, longest: longest)
        if gravityHolds() {
            for channel in 1..<Self.channels {
                var axis = periodicity(channel: channel, shortest: shortest, longest: longest)
                axis.correlation -= configuration.axisMargin
                if axis.correlation > best.correlation { best = axis }
            }
        }
        accumulated = min(max(accumulated + best.correlation - configuration.minimumCorrelation, 0), 2 * configuration.evidence)
        let moving = latestVariation() >= configuration.minimumVariation
        if moving, best.correlation >= configuration.minimumCorrelation, best.period > 0 {
            // A period longer than a step at the slowest cadence is a stride.
            let frequency = Double(rate) / best.period
            cadence = frequency >= configuration.cadence.lowerBound ? frequency : 2 * frequency
        } else {
            cadence = nil
        }
        return moving && accumulated >= configuration.evidence
    }

    /// The highest peak of the channel's normalized autocorrelation between
    /// the two lags (a peak, not the slope down from lag 0 of a slow drift),
    /// and its period in samples, refined between lags by a parabola.
    private mutating func periodicity(channel: Int, shortest: Int, longest: Int) -> (correlation: Double, period: Double) {
        let base = channel * count
        var mean = 0.0
        for index in 0..<count {
            let value = filtered[base + (next + index) % count]
            scratch[index] = value
            mean += value
        }
        mean /= Double(count)
        var energy = 0.0
        for index in 0..<count {
            scratch[index] -= mean
            energy += scratch[index] * scratch[index]
        }
        guard energy > 0 else { return (-1, 0) }
        func correlation(_ lag: Int) -> Double {
            var sum = 0.0
            for index in 0..<(count - lag) { sum += scratch[index] * scratch[index + lag] }
            return sum / energy
        }
        var best = (correlation: -1.0, period: 0.0)
        var before = correlation(shortest - 1)
        var here = correlation(shortest)
        for lag in shortest...longest {
            let after = correlation(lag + 1)
            if here > before, here >= after, here > best.correlation {
                let curvature = before - 2 * here + after
                let shift = curvature < 0 ? 0.5 * (before - after) / curvature : 0
                best = (here, Double(lag) + shift)
            }
            before = here
            here = after
        }
        return best
    }

    /// Whether the phone kept its attitude: each second's mean direction of
    /// the acceleration stays within `gravityWander` of the window's.
    private func gravityHolds() -> Bool {
        let block = min(rate, count)
        let blocks = count / block
        func direction(_ index: Int) -> SIMD3<Double>? {
            var sum = SIMD3<Double>.zero
            for offset in 0..<block { sum += raw[(next + index * block + offset) % count] }
            let length = (sum * sum).sum().squareRoot()
            return length > 0 ? sum / length : nil
        }
        var total = SIMD3<Double>.zero
        for index in 0..<blocks {
            guard let unit = direction(index) else { return false }
            total += unit
        }
        let length = (total * total).sum().squareRoot()
        guard length > 0 else { return false }
        let mean = total / length
        let limit = configuration.gravityWander * configuration.gravityWander
        for index in 0..<blocks {
            guard let unit = direction(index) else { return false }
            let apart = unit - mean
            if (apart * apart).sum() > limit { return false }
        }
        return true
    }

    /// Standard deviation of the filtered magnitude over the latest `motionWindow` seconds.
    private func latestVariation() -> Double {
        let span = max(2, min(count, Int(configuration.motionWindow * Double(rate))))
        var sum = 0.0
        var squares = 0.0
        for offset in 1...span {
            let value = filtered[(next - offset + count) % count]
            sum += value
            squares += value * value
        }
        let mean = sum / Double(span)
        return max(0, squares / Double(span) - mean * mean).squareRoot()
    }
}

/// A second-order Butterworth high-pass then low-pass (bilinear transform;
/// below 3 Hz at 50 Hz, tan(πf/rate) is πf/rate within 1 %, so no
/// trigonometry). The first sample primes it as if it had always been there,
/// so gravity does not ring through.
private struct BandPass: Sendable {
    private var high: Biquad
    private var low: Biquad
    private var primed = false

    init(band: ClosedRange<Double>, rate: Double) {
        high = Biquad(cutoff: band.lowerBound, rate: rate, highPass: true)
        low = Biquad(cutoff: band.upperBound, rate: rate, highPass: false)
    }

    mutating func reset() {
        high.reset(to: 0)
        low.reset(to: 0)
        primed = false
    }

    mutating func step(_ value: Double) -> Double {
        if !primed {
            high.reset(to: value)
            primed = true
        }
        return low.step(high.step(value))
    }
}

private struct Biquad: Sendable {
    private let b0: Double, b1: Double, b2: Double, a1: Double, a2: Double
    private var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0

    init(cutoff: Double, rate: Double, highPass: Bool) {
        let k = Double.pi * cutoff / rate
        let q = 0.5.squareRoot()
        let norm = 1 / (1 + k / q + k * k)
        a1 = 2 * (k * k - 1) * norm
        a2 = (1 - k / q + k * k) * norm
        b0 = highPass ? norm : k * k * norm
        b1 = highPass ? -2 * b0 : 2 * b0
        b2 = b0
    }

    /// As if the input had been `input` forever and the output 0: a
    /// high-pass's steady state, or a low-pass's with `input` 0.
    mutating func reset(to input: Double) {
        x1 = input
        x2 = input
        y1 = 0
        y2 = 0
    }

    mutating func step(_ x: Double) -> Double {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1
        x1 = x
        y2 = y1
        y1 = y
        return y
    }
}
