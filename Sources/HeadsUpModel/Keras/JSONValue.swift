import Foundation

/// A parsed JSON document (Keras configs), with typed accessors that return
/// `nil` rather than trapping on the wrong shape of data.
package enum JSONValue: Sendable, Equatable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses `text`; `nil` when it is not JSON.
    package static func parse(_ text: String) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    }

    package subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    package var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    package var number: Double? {
        if case .number(let n) = self { return n }
        return nil
    }
    package var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    package var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    package var object: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }
    package var isNull: Bool { self == .null }

    /// An integer value (JSON numbers are doubles).
    package var int: Int? {
        guard let n = number, n == n.rounded(), abs(n) < 1e15 else { return nil }
        return Int(n)
    }

    /// A list of integers, or a single integer as a one-element list
    /// (Keras writes `kernel_size` either way).
    package var ints: [Int]? {
        if let single = int { return [single] }
        guard let items = array else { return nil }
        let values = items.compactMap(\.int)
        return values.count == items.count ? values : nil
    }
}
