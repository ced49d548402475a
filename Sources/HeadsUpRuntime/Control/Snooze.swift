import HeadsUpData

/// A pause of warnings the user asked for (`headsup snooze 30m`, or the
/// notification's Snooze button). It ends at a wall-clock time, so it means
/// the same after a restart and in `headsup status`. While the daemon runs
/// it is also held on the monotonic clock, so a wall clock that steps (NTP
/// on a board without a real-time clock) neither stretches nor cuts it;
/// after a restart it lasts at most its remaining length. Pure: times in.
public struct Snooze: Codable, Sendable, Equatable {
    /// Unix seconds when it was asked for and when it ends.
    public var since: Double
    public var until: Double

    public init(since: Double, until: Double) {
        self.since = since
        self.until = until
    }

    public var length: Double { until - since }

    /// The longest snooze: a week. Longer is "turn HeadsUp off".
    public static let longest = 7 * 86400.0

    /// Unix seconds a saved record's times may take: 1970 to the year 9999.
    public static let wallClockRange = 0.0...253_402_300_799.0

    /// A record read back from a file: both times finite and plausible wall
    /// clock times (`CheckedNumber`), the end not before the start, and no
    /// longer than a week. Anything else is refused with what to do.
    public static func checked(_ record: Snooze) throws(SnoozeRecordError) -> Snooze {
        do {
            _ = try CheckedNumber.double(record.since, in: wallClockRange, what: "since")
            _ = try CheckedNumber.double(record.until, in: wallClockRange, what: "until")
        } catch {
            throw SnoozeRecordError(message: "\(error) (Unix seconds)")
        }
        guard record.until >= record.since else { throw SnoozeRecordError(message: "until comes before since") }
        guard record.length <= longest else {
            throw SnoozeRecordError(message: "lasts \(CheckedNumber.clampedInteger(record.length)) s, longer than a week")
        }
        return record
    }

    /// "30m", "1h30m", "90s", "2h": whole numbers with s, m or h.
    public static func parseLength(_ text: String) throws(SnoozeError) -> Double {
        var total = 0.0
        var digits = ""
        var sawUnit = false
        for character in text.lowercased() where character != " " {
            if character.isASCII, character.isNumber {
                digits.append(character)
                continue
            }
            let unit: Double
            switch character {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            case "d": unit = 86400
            default: throw .badLength(text)
            }
            guard let number = Double(digits) else { throw .badLength(text) }
            total += number * unit
            digits = ""
            sawUnit = true
        }
        guard sawUnit, digits.isEmpty, total > 0 else { throw .badLength(text) }
        guard total <= longest else { throw .tooLong(text) }
        return total
    }
}

/// The snooze as the running daemon holds it: the wall-clock record to
/// save and show, plus its end on the monotonic clock.
public struct SnoozeClock: Sendable, Equatable {
    public private(set) var snooze: Snooze?
    private var monotonicEnd: Double?

    public init() {}

    /// Starts (or replaces) a snooze of `length` seconds.
    public mutating func start(length: Double, wallNow: Double, monotonicNow: Double) {
        snooze = Snooze(since: wallNow, until: wallNow + length)
        monotonicEnd = monotonicNow + length
    }

    /// Takes up a saved snooze after a restart: what is left of it by the
    /// wall clock, never more than its length.
    /// Capped at `Snooze.longest` whatever the record says (a record from
    /// an older HeadsUp, or edited by hand), and ignored when not finite.
    public mutating func restore(_ saved: Snooze, wallNow: Double, monotonicNow: Double) {
        guard saved.since.isFinite, saved.until.isFinite else { return stop() }
        let remaining = min(saved.until - wallNow, saved.length, Snooze.longest)
        guard remaining > 0 else { return stop() }
        snooze = saved
        monotonicEnd = monotonicNow + remaining
    }

    public mutating func stop() {
        snooze = nil
        monotonicEnd = nil
    }

    public func isActive(monotonicNow: Double) -> Bool { monotonicEnd.map { monotonicNow < $0 } ?? false }

    /// Seconds left, or nil when not snoozed.
    public func remaining(monotonicNow: Double) -> Double? {
        guard let monotonicEnd, monotonicNow < monotonicEnd else { return nil }
        return monotonicEnd - monotonicNow
    }

    /// Ends a snooze whose time is up; true when it just ended.
    public mutating func expire(monotonicNow: Double) -> Bool {
        guard monotonicEnd != nil, !isActive(monotonicNow: monotonicNow) else { return false }
        stop()
        return true
    }
}

/// Why a saved snooze record cannot be taken up.
public struct SnoozeRecordError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Why a snooze request cannot be followed.
public enum SnoozeError: Error, Sendable, Equatable, CustomStringConvertible {
    case badLength(String)
    case tooLong(String)

    public var description: String {
        switch self {
        case .badLength(let text): "'\(text)' is not a snooze length: use whole numbers with s, m, h or d (30m, 1h30m), or off"
        case .tooLong(let text): "'\(text)' is longer than a week; to stop HeadsUp, stop its service"
        }
    }
}
