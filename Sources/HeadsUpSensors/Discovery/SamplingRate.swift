import Foundation
import HeadsUpData

/// The rates a device offers, from its `sampling_frequency_available`
/// attribute: a discrete list ("12.5 26 52 104") or a range "[min step max]".
public enum AvailableRates: Sendable, Equatable {
    case list([Double])
    case range(minimum: Double, step: Double, maximum: Double)

    public init?(parsing text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("["), trimmed.hasSuffix("]") {
            let numbers = trimmed.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" }).compactMap {
                try? CheckedNumber.double($0, in: 0...SensorDiscovery.highestRate, what: "sampling_frequency_available")
            }
            guard numbers.count == 3, numbers[0] <= numbers[2], numbers[1] >= 0 else { return nil }
            self = .range(minimum: numbers[0], step: numbers[1], maximum: numbers[2])
            return
        }
        let numbers = trimmed.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," }).compactMap {
            try? CheckedNumber.double($0, in: 0...SensorDiscovery.highestRate, what: "sampling_frequency_available")
        }
        guard !numbers.isEmpty, numbers.allSatisfy({ $0 > 0 && $0.isFinite }) else { return nil }
        self = .list(numbers.sorted())
    }

    /// The fastest rate the device offers.
    public var highest: Double {
        switch self {
        case .list(let rates): rates.last!
        case .range(_, _, let maximum): maximum
        }
    }

    /// The lowest available rate at or above `target` (resampling down is
    /// exact, up is not); the highest one when none reaches it.
    public func choose(atLeast target: Double) -> Double {
        switch self {
        case .list(let rates):
            return rates.first { $0 >= target - 1e-9 } ?? rates.last!
        case .range(let minimum, let step, let maximum):
            guard target > minimum else { return minimum }
            guard target < maximum else { return maximum }
            guard step > 0 else { return target }
            return min(maximum, minimum + (((target - minimum) / step) - 1e-9).rounded(.up) * step)
        }
    }
}
