import HeadsUpData

/// Smooths a beacon's noisy RSSI readings. Pure: readings and their times in.
public protocol RSSIFilter: Sendable {
    mutating func add(_ rssi: Double, at time: Double)
    /// The smoothed value at `time`, or `nil` when nothing recent remains.
    func value(at time: Double) -> Double?
}

/// Which filter, with its parameters, as configured.
public enum RSSIFilterKind: Sendable, Equatable {
    /// Auto-regressive moving average: x ← x + c·(rssi − x). AltBeacon's default c is 0.1.
    case arma(coefficient: Double)
    /// Mean of the readings of the last `window` seconds after dropping the
    /// top and bottom `trim` fraction (AltBeacon: 20 s, 10 %).
    case trimmedMean(window: Double, trim: Double)

    /// The spec it parses from: `arma:0.25`, `trimmed:20:0.1`.
    public var spec: String {
        func text(_ value: Double) -> String { Int(exactly: value).map(String.init) ?? String(value) }
        switch self {
        case .arma(let coefficient): return "arma:\(text(coefficient))"
        case .trimmedMean(let window, let trim): return "trimmed:\(text(window)):\(text(trim))"
        }
    }

    public func make() -> any RSSIFilter {
        switch self {
        case .arma(let coefficient): ARMAFilter(coefficient: coefficient)
        case .trimmedMean(let window, let trim): TrimmedMeanFilter(window: window, trim: trim)
        }
    }
}

public struct ARMAFilter: RSSIFilter {
    public let coefficient: Double
    private var current: Double?

    public init(coefficient: Double = 0.1) { self.coefficient = coefficient }

    public mutating func add(_ rssi: Double, at time: Double) {
        current = current.map { $0 + coefficient * (rssi - $0) } ?? rssi
    }

    public func value(at time: Double) -> Double? { current }
}

public struct TrimmedMeanFilter: RSSIFilter {
    public let window: Double
    public let trim: Double
    private var readings: [(time: Double, rssi: Double)] = []

    public init(window: Double = 20, trim: Double = 0.1) {
        self.window = window
        self.trim = trim
    }

    public mutating func add(_ rssi: Double, at time: Double) {
        readings.append((time, rssi))
        readings.removeAll { $0.time < time - window }
    }

    public func value(at time: Double) -> Double? {
        let recent = readings.filter { $0.time >= time - window }.map(\.rssi).sorted()
        guard !recent.isEmpty else { return nil }
        let cut = Int(Double(recent.count) * trim)
        let kept = recent.count - 2 * cut > 0 ? recent[cut..<(recent.count - cut)] : recent[...]
        return kept.reduce(0, +) / Double(kept.count)
    }
}

extension RSSIFilterKind {
    /// The longest trimmed-mean window: an hour of readings is already more
    /// than a walk past a crossing, and a bound keeps the window's arithmetic finite.
    public static let longestWindow = 3600.0

    /// Parses the form users write: `arma:C` (0 < C ≤ 1) or
    /// `trimmed:WINDOW:FRACTION` (0 < WINDOW ≤ 3600 s, 0 ≤ FRACTION < 0.5).
    /// Each number goes through `CheckedNumber`: infinities, NaN and huge
    /// values are refused, never converted.
    public init(parsing text: String) throws(RegionSpecError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first, parts.count) {
        case ("arma", 2):
            guard let c = try? CheckedNumber.double(parts[1], in: 0...1, what: "C"), c > 0 else {
                throw RegionSpecError(spec: text, reason: "arma:C needs 0 < C ≤ 1")
            }
            self = .arma(coefficient: c)
        case ("trimmed", 3):
            guard let window = try? CheckedNumber.double(parts[1], in: 0...Self.longestWindow, what: "WINDOW"), window > 0,
                let trim = try? CheckedNumber.double(parts[2], in: 0...0.5, what: "FRACTION"), trim < 0.5
            else {
                throw RegionSpecError(
                    spec: text, reason: "trimmed:WINDOW:FRACTION needs 0 < WINDOW ≤ \(Int(Self.longestWindow)) (seconds) and 0 ≤ FRACTION < 0.5")
            }
            self = .trimmedMean(window: window, trim: trim)
        default:
            throw RegionSpecError(spec: text, reason: "the RSSI filter is arma:C or trimmed:WINDOW:FRACTION")
        }
    }
}
