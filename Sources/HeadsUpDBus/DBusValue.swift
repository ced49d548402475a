/// A D-Bus value of any type, as read from or written to a message. The
/// whole message is converted at the seam (``DBusConnection``), so the code
/// above works on plain Swift values and can be tested with odd payloads
/// without a bus.
public indirect enum DBusValue: Equatable, Sendable, CustomStringConvertible {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `ay`, as the decoder reads it: one array of bytes, not a value per
    /// byte (an advertisement's data arrives this way, many times a second).
    case bytes([UInt8])
    /// Elements all of `elementSignature`.
    case array(elementSignature: String, [DBusValue])
    /// `a{KV}`: entries in message order.
    case dictionary(keySignature: String, valueSignature: String, [DBusDictionaryEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    /// The D-Bus type signature of this value.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    public var description: String {
        switch self {
        case .byte(let v): "byte \(v)"
        case .boolean(let v): "\(v)"
        case .int16(let v): "int16 \(v)"
        case .uint16(let v): "uint16 \(v)"
        case .int32(let v): "int32 \(v)"
        case .uint32(let v): "uint32 \(v)"
        case .int64(let v): "int64 \(v)"
        case .uint64(let v): "uint64 \(v)"
        case .double(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .objectPath(let v): "path \(v)"
        case .signature(let v): "signature \(v)"
        case .bytes(let bytes): "[" + bytes.map { "byte \($0)" }.joined(separator: ", ") + "]"
        case .array(_, let items): "[" + items.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(_, _, let entries): "{" + entries.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
        case .structure(let fields): "(" + fields.map(\.description).joined(separator: ", ") + ")"
        case .variant(let inner): "<\(inner)>"
        }
    }

    // MARK: Typed views (nil when the value is of another type)

    /// Unwraps any number of variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }

    public var bool: Bool? {
        if case .boolean(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer type, widened.
    public var integer: Int64? {
        switch unwrapped {
        case .byte(let v): Int64(v)
        case .int16(let v): Int64(v)
        case .uint16(let v): Int64(v)
        case .int32(let v): Int64(v)
        case .uint32(let v): Int64(v)
        case .int64(let v): v
        case .uint64(let v): v <= UInt64(Int64.max) ? Int64(v) : nil
        default: nil
        }
    }

    /// `ay` as bytes.
    public var bytes: [UInt8]? {
        if case .bytes(let bytes) = unwrapped { return bytes }
        guard case .array("y", let items) = unwrapped else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(items.count)
        for item in items {
            guard case .byte(let b) = item else { return nil }
            result.append(b)
        }
        return result
    }

    public var entries: [DBusDictionaryEntry]? {
        if case .dictionary(_, _, let entries) = unwrapped { return entries }
        return nil
    }

    public var items: [DBusValue]? {
        switch unwrapped {
        case .array(_, let items): items
        case .bytes(let bytes): bytes.map(DBusValue.byte)
        case .structure(let fields): fields
        default: nil
        }
    }

    /// `a{sX}` as a Swift dictionary keyed by the strings.
    public var stringKeyed: [String: DBusValue]? {
        guard let entries else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            result[key] = entry.value
        }
        return result
    }

    /// Builds `a{sv}` from Swift values.
    public static func properties(_ values: [(String, DBusValue)]) -> DBusValue {
        .dictionary(keySignature: "s", valueSignature: "v", values.map { DBusDictionaryEntry(key: .string($0.0), value: .variant($0.1)) })
    }
}

/// One entry of a D-Bus dictionary.
public struct DBusDictionaryEntry: Equatable, Sendable {
    public var key: DBusValue
    public var value: DBusValue

    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}
