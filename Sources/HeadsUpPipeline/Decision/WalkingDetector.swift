import HeadsUpData

/// How walking is told from standing still.
public struct WalkingConfiguration: Sendable, Equatable, Codable {
    /// Seconds of acceleration magnitude each judgement looks at.
    public var window: Double
    /// Step rates (Hz) that count as walking: people step 1.4–2.4 times a second.
    public var cadence: ClosedRange<Double>
    /// Normalized autocorrelation at the step period needed to report a cadence.
    public var minimumCorrelation: Double
    /// Standard deviation of the magnitude (g) from which the user walks:
    /// a phone held while standing varies by 0.01–0.03 g, one held while
    /// walking by 0.05–0.1 g (the bundled walks), one in a pocket by more.
    public var minimumVariation: Double

    public init(window: Double = 4, cadence: ClosedRange<Double> = 1.2...2.6, minimumCorrelation: Double = 0.2, minimumVariation: Double = 0.04) {
        self.window = window
        self.cadence = cadence
        self.minimumCorrelation = minimumCorrelation
        self.minimumVariation = minimumVariation
    }
}

/// Walking or still, from the accelerometer. Every half second the
/// detector takes the last `window` seconds of the acceleration's
/// magnitude: walking moves it by more than `minimumVariation`, standing
/// with the phone or leaving it on a table does not. A walking body also
/// bounces the magnitude once a step, and the step rate (the peak of the
/// magnitude's autocorrelation in the cadence range) is reported when it is
/// clear. The bundled walks are held phones whose bounce is weak (peaks of
/// 0.1–0.3), so the rate informs and the motion decides. The state changes
/// after two judgements agree. Pure: 50 Hz samples in, no clock.
public struct WalkingDetector: Sendable {
    public let configuration: WalkingConfiguration
    public let rate: Int
    private var magnitudes: [Double]
    private var next = 0
    private var filled = 0
    private var sinceJudgement = 0
    private var disagreements = 0
    public private(set) var isWalking = false
    /// Steps per second at the latest judgement that found a period.
    public private(set) var cadence: Double?

    public init(configuration: WalkingConfiguration = .init(), rate: Int = 50) {
        self.configuration = configuration
        self.rate = rate
        magnitudes = [Double](repeating: 0, count: max(8, Int(configuration.window * Double(rate))))
    }

    /// Forgets the recent motion (a gap in the stream).
    public mutating func reset() {
        filled = 0
        next = 0
        sinceJudgement = 0
        disagreements = 0
        isWalking = false
        cadence = nil
    }

    /// Feeds one sample; returns the new state when it changes.
    public mutating func push(_ sample: MotionSample) -> Bool? {
        let a = sample.acceleration
        magnitudes[next] = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
        next = (next + 1) % magnitudes.count
        filled = min(filled + 1, magnitudes.count)
        sinceJudgement += 1
        guard filled == magnitudes.count, sinceJudgement >= rate / 2 else { return nil }
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

    /// Moving enough to be more than a hand's tremor; the cadence on the side.
    private mutating func judge() -> Bool {
        let count = magnitudes.count
        // Oldest first.
        let series = (0..<count).map { magnitudes[(next + $0) % count] }
        let mean = series.reduce(0, +) / Double(count)
        let centered = series.map { $0 - mean }
        let energy = centered.reduce(0) { $0 + $1 * $1 }
        guard (energy / Double(count)).squareRoot() >= configuration.minimumVariation else {
            cadence = nil
            return false
        }
        let shortest = max(1, Int((Double(rate) / configuration.cadence.upperBound).rounded(.down)))
        let longest = min(count / 2, Int((Double(rate) / configuration.cadence.lowerBound).rounded(.up)))
        func correlation(_ lag: Int) -> Double {
            var sum = 0.0
            for index in 0..<(count - lag) { sum += centered[index] * centered[index + lag] }
            return sum / energy
        }
        // A true period is a peak of the autocorrelation, not the slope down from lag 0 of a slow drift.
        let lags = (shortest - 1)...(max(shortest, longest) + 1)
        let correlations = lags.map(correlation)
        var best = (lag: 0, correlation: -1.0)
        for offset in 1..<(correlations.count - 1)
        where correlations[offset] > correlations[offset - 1] && correlations[offset] >= correlations[offset + 1]
            && correlations[offset] > best.correlation
        {
            best = (lags.lowerBound + offset, correlations[offset])
        }
        cadence = best.correlation >= configuration.minimumCorrelation ? Double(rate) / Double(best.lag) : nil
        return true
    }
}
