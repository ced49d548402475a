import Glibc

/// How raw window scores become a steady "distracted" state.
public struct DistractionConfiguration: Sendable, Equatable, Codable {
    /// Smoothing time constant (s) of the exponential moving average.
    public var timeConstant: Double
    /// Become distracted when the smoothed score reaches this…
    public var enterThreshold: Double
    /// …and attentive again only when it falls below this (hysteresis).
    public var exitThreshold: Double
    /// Seconds a threshold must stay crossed before the state changes.
    public var minimumDuration: Double

    public init(timeConstant: Double = 1.0, enterThreshold: Double = 0.5, exitThreshold: Double = 0.35, minimumDuration: Double = 0.5) {
        self.timeConstant = timeConstant
        self.enterThreshold = enterThreshold
        self.exitThreshold = exitThreshold
        self.minimumDuration = minimumDuration
    }

    /// Defaults around a model card's decision threshold.
    public static func around(threshold: Double) -> DistractionConfiguration {
        DistractionConfiguration(enterThreshold: threshold, exitThreshold: max(0.05, threshold - 0.15))
    }
}

/// Turns window scores into a distraction state: EMA smoothing with a time
/// constant (so it does not depend on the hop), hysteresis and a minimum
/// duration. Pure: scores and their times in.
public struct DistractionTracker: Sendable {
    public enum Change: Sendable, Equatable {
        case becameDistracted(at: Double)
        case becameAttentive(at: Double)
    }

    public let configuration: DistractionConfiguration
    public private(set) var smoothedScore: Double?
    public private(set) var latestScore: Double?
    public private(set) var isDistracted = false
    private var lastTime: Double?
    private var crossingSince: Double?

    public init(configuration: DistractionConfiguration = .init()) {
        self.configuration = configuration
    }

    /// Adds the score of a window ending at `time`; returns a state change if any.
    /// A score or time that is not finite is ignored: once in the average,
    /// a NaN would stay there until the next reset.
    public mutating func add(score: Double, at time: Double) -> Change? {
        guard score.isFinite, time.isFinite else { return nil }
        latestScore = score
        if let previous = smoothedScore, let lastTime, time > lastTime {
            let alpha = configuration.timeConstant > 0 ? 1 - exp(-(time - lastTime) / configuration.timeConstant) : 1
            smoothedScore = previous + alpha * (score - previous)
        } else if smoothedScore == nil {
            smoothedScore = score
        }
        lastTime = time
        let smoothed = smoothedScore!
        let crossing = isDistracted ? smoothed < configuration.exitThreshold : smoothed >= configuration.enterThreshold
        guard crossing else {
            crossingSince = nil
            return nil
        }
        let since = crossingSince ?? time
        crossingSince = since
        guard time - since >= configuration.minimumDuration else { return nil }
        crossingSince = nil
        isDistracted.toggle()
        return isDistracted ? .becameDistracted(at: time) : .becameAttentive(at: time)
    }

    /// Forgets the history (a gap in the sensor stream).
    public mutating func reset() {
        smoothedScore = nil
        latestScore = nil
        lastTime = nil
        crossingSince = nil
        isDistracted = false
    }
}
