/// The one way a number from outside becomes a value HeadsUp computes with:
/// a setting, a state file, a sysfs attribute, a CSV field. Swift traps
/// (SIGILL) when a Double too large for an Int is converted, or when an
/// infinity reaches an Int, and a service that traps at start-up restarts
/// in a loop; so every such number is parsed here, must be finite and
/// within the range its use allows, and becomes an Int only through
/// `integer`, which cannot trap.
public enum CheckedNumber {
    /// `text` as a finite number within `range`.
    public static func double(_ text: some StringProtocol, in range: ClosedRange<Double>, what: String) throws(CheckedNumberError) -> Double {
        let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let end = trimmed.lastIndex { !($0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r") }
        let field = end.map { String(trimmed[...$0]) } ?? ""
        guard let value = Double(field) else { throw CheckedNumberError(what: what, text: field, range: range, problem: .notANumber) }
        return try double(value, in: range, what: what, text: field)
    }

    /// `value` when it is finite and within `range`.
    public static func double(_ value: Double, in range: ClosedRange<Double>, what: String, text: String? = nil) throws(CheckedNumberError)
        -> Double
    {
        let shown = text ?? "\(value)"
        guard value.isFinite else { throw CheckedNumberError(what: what, text: shown, range: range, problem: .notFinite) }
        guard range.contains(value) else { throw CheckedNumberError(what: what, text: shown, range: range, problem: .outOfRange) }
        return value
    }

    /// `value` as a whole number within `range` (a fraction is refused).
    public static func integer(_ value: Double, in range: ClosedRange<Int>, what: String, text: String? = nil) throws(CheckedNumberError) -> Int {
        let bounds = Double(range.lowerBound)...Double(range.upperBound)
        let checked = try double(value, in: bounds, what: what, text: text)
        guard checked == checked.rounded(), let whole = Int(exactly: checked), range.contains(whole) else {
            throw CheckedNumberError(what: what, text: text ?? "\(value)", range: bounds, problem: .notWhole)
        }
        return whole
    }

    /// `value` rounded toward zero and held within Int's range; NaN is 0.
    /// For showing and sizing what is already bounded; never traps.
    public static func clampedInteger(_ value: Double) -> Int {
        guard !value.isNaN else { return 0 }
        if value >= 9.2e18 { return Int.max }
        if value <= -9.2e18 { return Int.min }
        return Int(value)
    }
}

/// A number from outside that HeadsUp cannot use, and which range it must be in.
public struct CheckedNumberError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        case notANumber, notFinite, outOfRange, notWhole
    }

    /// What the number is ("beacons.filter's window", "sampling_frequency of iio:device0").
    public var what: String
    public var text: String
    public var range: ClosedRange<Double>
    public var problem: Problem

    public init(what: String, text: String, range: ClosedRange<Double>, problem: Problem) {
        self.what = what
        self.text = text
        self.range = range
        self.problem = problem
    }

    /// The range as a person reads it: "from 0 to 3600".
    public var expected: String { "a number from \(Self.shown(range.lowerBound)) to \(Self.shown(range.upperBound))" }

    public var description: String {
        switch problem {
        case .notANumber: "\(what): '\(text)' is not a number; expected \(expected)"
        case .notFinite: "\(what): '\(text)' is not a finite number; expected \(expected)"
        case .outOfRange: "\(what): \(text) is out of range; expected \(expected)"
        case .notWhole: "\(what): \(text) is not a whole number; expected \(expected)"
        }
    }

    static func shown(_ bound: Double) -> String {
        if abs(bound) < 1e15, let whole = Int(exactly: bound) { return String(whole) }
        return "\(bound)"
    }
}
