import HeadsUpData

/// One configuration key: its name, what it accepts, and where its value
/// lives in `Settings`. The default is whatever `Settings()` holds there.
public struct SettingKey: Sendable {
    public let name: String
    public let help: String
    /// What the key accepts, for errors and `config show`: "a number from 0 to 1".
    public let accepts: String
    /// Shown redacted by `config show`, logs and JSON output.
    public let isSecret: Bool
    private let read: @Sendable (Settings) -> SettingValue
    private let write: @Sendable (inout Settings, SettingValue) throws(SettingValueError) -> Void

    public init(
        name: String, help: String, accepts: String, isSecret: Bool = false, read: @escaping @Sendable (Settings) -> SettingValue,
        write: @escaping @Sendable (inout Settings, SettingValue) throws(SettingValueError) -> Void
    ) {
        self.name = name
        self.help = help
        self.accepts = accepts
        self.isSecret = isSecret
        self.read = read
        self.write = write
    }

    public func value(in settings: Settings) -> SettingValue { read(settings) }

    /// Sets the value, or throws when it is of the wrong kind or out of range.
    public func apply(_ value: SettingValue, to settings: inout Settings) throws(SettingValueError) {
        try write(&settings, value)
    }

    /// The value as a person may see it: secrets keep only their scheme and host.
    public func displayed(_ value: SettingValue) -> String {
        guard isSecret, case .string(let text) = value else { return value.description }
        return Redaction.redacted(text)
    }
}

/// Why a value does not fit its key (the caller adds the key and the source).
public struct SettingValueError: Error, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}

// MARK: Key kinds

extension SettingKey {
    private static func describe(_ bound: Double) -> String { SettingValue.number(bound).description }

    /// A number within `range`.
    static func number(
        _ name: String, _ path: WritableKeyPath<Settings, Double> & Sendable, in range: ClosedRange<Double>, help: String
    ) -> SettingKey {
        let accepts = "a number from \(describe(range.lowerBound)) to \(describe(range.upperBound))"
        return SettingKey(
            name: name, help: help, accepts: accepts, read: { .number($0[keyPath: path]) },
            write: { settings, value throws(SettingValueError) in
                settings[keyPath: path] = try number(value, in: range, accepts: accepts)
            })
    }

    /// A number within `range`, or unset.
    static func optionalNumber(
        _ name: String, _ path: WritableKeyPath<Settings, Double?> & Sendable, in range: ClosedRange<Double>, help: String
    ) -> SettingKey {
        let accepts = "a number from \(describe(range.lowerBound)) to \(describe(range.upperBound)), or null"
        return SettingKey(
            name: name, help: help, accepts: accepts, read: { $0[keyPath: path].map(SettingValue.number) ?? .null },
            write: { settings, value throws(SettingValueError) in
                settings[keyPath: path] = value == .null ? nil : try number(value, in: range, accepts: accepts)
            })
    }

    /// A whole number within `range`.
    static func integer(_ name: String, _ path: WritableKeyPath<Settings, Int> & Sendable, in range: ClosedRange<Int>, help: String) -> SettingKey {
        let accepts = "a whole number from \(range.lowerBound) to \(range.upperBound)"
        return SettingKey(
            name: name, help: help, accepts: accepts, read: { .number(Double($0[keyPath: path])) },
            write: { settings, value throws(SettingValueError) in
                let number = try number(value, in: Double(range.lowerBound)...Double(range.upperBound), accepts: accepts)
                guard let whole = try? CheckedNumber.integer(number, in: range, what: name) else { throw SettingValueError("expected \(accepts)") }
                settings[keyPath: path] = whole
            })
    }

    static func boolean(_ name: String, _ path: WritableKeyPath<Settings, Bool> & Sendable, help: String) -> SettingKey {
        SettingKey(
            name: name, help: help, accepts: "true or false", read: { .boolean($0[keyPath: path]) },
            write: { settings, value throws(SettingValueError) in
                guard case .boolean(let flag) = value else { throw SettingValueError("expected true or false") }
                settings[keyPath: path] = flag
            })
    }

    /// Text; `nonEmpty` refuses "".
    static func text(_ name: String, _ path: WritableKeyPath<Settings, String> & Sendable, help: String) -> SettingKey {
        SettingKey(
            name: name, help: help, accepts: "text", read: { .string($0[keyPath: path]) },
            write: { settings, value throws(SettingValueError) in
                guard case .string(let text) = value, !text.isEmpty else { throw SettingValueError("expected non-empty text") }
                settings[keyPath: path] = text
            })
    }

    static func optionalText(
        _ name: String, _ path: WritableKeyPath<Settings, String?> & Sendable, isSecret: Bool = false, help: String
    ) -> SettingKey {
        SettingKey(
            name: name, help: help, accepts: "text, or null", isSecret: isSecret, read: { $0[keyPath: path].map(SettingValue.string) ?? .null },
            write: { settings, value throws(SettingValueError) in
                switch value {
                case .null: settings[keyPath: path] = nil
                case .string(let text) where !text.isEmpty: settings[keyPath: path] = text
                default: throw SettingValueError("expected non-empty text, or null")
                }
            })
    }

    /// A list of text; a single text counts as a list of one.
    static func list(_ name: String, _ path: WritableKeyPath<Settings, [String]> & Sendable, help: String) -> SettingKey {
        SettingKey(
            name: name, help: help, accepts: "a list of text", read: { .list($0[keyPath: path]) },
            write: { settings, value throws(SettingValueError) in
                switch value {
                case .list(let items): settings[keyPath: path] = items
                case .string(let text): settings[keyPath: path] = [text]
                default: throw SettingValueError("expected a list of text")
                }
            })
    }

    /// A program and its arguments, run without a shell: a list whose first
    /// item names the program (or one word, the program alone). Text with
    /// spaces would name a program called all of it, so it is refused, as is
    /// an empty program; an empty list turns the command off.
    static func command(_ name: String, _ path: WritableKeyPath<Settings, [String]> & Sendable, help: String) -> SettingKey {
        let accepts = "a list: the program, then its arguments, e.g. [notify-send, HeadsUp]"
        return SettingKey(
            name: name, help: help, accepts: accepts, read: { .list($0[keyPath: path]) },
            write: { settings, value throws(SettingValueError) in
                let items: [String]
                switch value {
                case .list(let list): items = list
                case .string(let text) where !text.contains(where: \.isWhitespace): items = [text]
                case .string: throw SettingValueError("holds spaces; give \(accepts) (no shell runs it)")
                default: throw SettingValueError("expected \(accepts)")
                }
                if let program = items.first, program.trimmingWhitespace.isEmpty { throw SettingValueError("the program (the first item) is empty") }
                settings[keyPath: path] = items
            })
    }

    /// One of an enumeration's raw values.
    static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ path: WritableKeyPath<Settings, Choice> & Sendable, among choices: [Choice] = Array(Choice.allCases), help: String
    ) -> SettingKey where Choice.RawValue == String {
        let accepts = "one of " + choices.map(\.rawValue).joined(separator: ", ")
        return SettingKey(
            name: name, help: help, accepts: accepts, read: { .string($0[keyPath: path].rawValue) },
            write: { settings, value throws(SettingValueError) in
                guard case .string(let text) = value, let choice = Choice(rawValue: text), choices.contains(where: { $0.rawValue == text }) else {
                    throw SettingValueError("expected \(accepts)")
                }
                settings[keyPath: path] = choice
            })
    }

    /// Through `CheckedNumber`, the one check of numbers from outside.
    private static func number(_ value: SettingValue, in range: ClosedRange<Double>, accepts: String) throws(SettingValueError) -> Double {
        guard case .number(let number) = value else { throw SettingValueError("expected \(accepts)") }
        do { return try CheckedNumber.double(number, in: range, what: "") } catch {
            throw SettingValueError(error.problem == .outOfRange ? "out of range: expected \(accepts)" : "expected \(accepts)")
        }
    }
}
