import Foundation

/// A setting's value as written in a file or given as a flag, before it is
/// checked against its key.
public enum SettingValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case string(String)
    case number(Double)
    case boolean(Bool)
    case list([String])

    public var description: String {
        switch self {
        case .null: "(unset)"
        case .string(let text): text
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .boolean(let flag): flag ? "true" : "false"
        case .list(let items): "[" + items.joined(separator: ", ") + "]"
        }
    }

    /// A value from a parsed YAML document (Yams' `Any`), or nil when it has
    /// no setting shape (a mapping, a list of non-text items).
    init?(yaml raw: Any) {
        switch raw {
        case is NSNull: self = .null
        case let flag as Bool: self = .boolean(flag)
        case let number as Int: self = .number(Double(number))
        case let number as Double: self = .number(number)
        case let text as String: self = .string(text)
        case let items as [Any]:
            let texts = items.compactMap { $0 as? String }
            guard texts.count == items.count else { return nil }
            self = .list(texts)
        default: return nil
        }
    }
}
