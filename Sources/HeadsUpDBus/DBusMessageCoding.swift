import CSDBus

/// Converts between sd-bus messages and ``DBusValue``s. The only code that
/// walks sd-bus containers; everything else sees Swift values.
package enum DBusMessageCoding {
    /// Who sent a message and what it addresses, read from its header.
    package struct Header {
        package var sender: String?
        package var path: String
        package var interface: String
        package var member: String
    }

    package static func header(_ message: OpaquePointer) -> Header {
        func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
        return Header(
            sender: text(sd_bus_message_get_sender(message)), path: text(sd_bus_message_get_path(message)) ?? "",
            interface: text(sd_bus_message_get_interface(message)) ?? "", member: text(sd_bus_message_get_member(message)) ?? "")
    }

    package static func readAll(_ message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while let value = try read(message) { values.append(value) }
        return values
    }

    /// PropertiesChanged(s, a{sv}, as)'s interface and the names of its
    /// changed and invalidated properties, skipping every value; the
    /// message is rewound for a full read after. Nil when it has another shape.
    package static func changedPropertyNames(_ message: OpaquePointer) -> DBusSignalHead.ChangedProperties? {
        defer { sd_bus_message_rewind(message, 1) }
        var pointer: UnsafePointer<CChar>?
        guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &pointer) > 0, let pointer else { return nil }
        let interface = String(cString: pointer)
        var names: [String] = []
        guard sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "{sv}") > 0 else { return nil }
        while sd_bus_message_enter_container(message, CChar(UInt8(ascii: "e")), "sv") > 0 {
            var key: UnsafePointer<CChar>?
            guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &key) > 0, let key else { return nil }
            names.append(String(cString: key))
            guard sd_bus_message_skip(message, "v") >= 0, sd_bus_message_exit_container(message) >= 0 else { return nil }
        }
        guard sd_bus_message_exit_container(message) >= 0 else { return nil }
        if sd_bus_message_enter_container(message, CChar(UInt8(ascii: "a")), "s") > 0 {
            var invalidated: UnsafePointer<CChar>?
            while sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &invalidated) > 0, let name = invalidated {
                names.append(String(cString: name))
            }
            sd_bus_message_exit_container(message)
        }
        return DBusSignalHead.ChangedProperties(interface: interface, names: names)
    }

    /// The next value at the current level, or `nil` at its end.
    static func read(_ message: OpaquePointer) throws(DBusError) -> DBusValue? {
        var type: CChar = 0
        var contents: UnsafePointer<CChar>?
        let peeked = sd_bus_message_peek_type(message, &type, &contents)
        guard peeked >= 0 else { throw .errno(peeked, "reading a D-Bus message") }
        guard peeked > 0 else { return nil }
        func check(_ result: Int32) throws(DBusError) {
            if result < 0 { throw .errno(result, "reading a D-Bus message") }
        }
        func basic<T: BitwiseCopyable>(_ initial: T) throws(DBusError) -> T {
            var value = initial
            try check(sd_bus_message_read_basic(message, type, &value))
            return value
        }
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "y"): return .byte(try basic(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try basic(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(UInt16(0)))
        case UInt8(ascii: "i"), UInt8(ascii: "h"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            var pointer: UnsafePointer<CChar>?
            try check(sd_bus_message_read_basic(message, type, &pointer))
            let text = pointer.map { String(cString: $0) } ?? ""
            switch UInt8(bitPattern: type) {
            case UInt8(ascii: "o"): return .objectPath(text)
            case UInt8(ascii: "g"): return .signature(text)
            default: return .string(text)
            }
        case UInt8(ascii: "a"):
            let signature = contents.map { String(cString: $0) } ?? ""
            if signature == "y" {
                // In one piece: sd-bus hands out the message's own bytes, copied once.
                var pointer: UnsafeRawPointer?
                var size = 0
                try check(sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &pointer, &size))
                guard let pointer, size > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
            }
            try check(sd_bus_message_enter_container(message, type, contents))
            defer { sd_bus_message_exit_container(message) }
            if signature.hasPrefix("{") {
                let inner = String(signature.dropFirst().dropLast())
                let keySignature = String(inner.prefix(1))
                let valueSignature = String(inner.dropFirst())
                var entries: [DBusDictionaryEntry] = []
                while true {
                    var entryType: CChar = 0
                    var entryContents: UnsafePointer<CChar>?
                    let more = sd_bus_message_peek_type(message, &entryType, &entryContents)
                    try check(more)
                    if more == 0 { break }
                    try check(sd_bus_message_enter_container(message, entryType, entryContents))
                    guard let key = try read(message), let value = try read(message) else {
                        throw DBusError(operation: "reading a D-Bus message", message: "incomplete dictionary entry")
                    }
                    sd_bus_message_exit_container(message)
                    entries.append(DBusDictionaryEntry(key: key, value: value))
                }
                return .dictionary(keySignature: keySignature, valueSignature: valueSignature, entries)
            }
            var items: [DBusValue] = []
            while let item = try read(message) { items.append(item) }
            return .array(elementSignature: signature, items)
        case UInt8(ascii: "v"):
            try check(sd_bus_message_enter_container(message, type, contents))
            defer { sd_bus_message_exit_container(message) }
            guard let inner = try read(message) else {
                throw DBusError(operation: "reading a D-Bus message", message: "empty variant")
            }
            return .variant(inner)
        case UInt8(ascii: "r"):
            try check(sd_bus_message_enter_container(message, type, contents))
            defer { sd_bus_message_exit_container(message) }
            return .structure(try readAll(message))
        default:
            throw DBusError(operation: "reading a D-Bus message", message: "unsupported type '\(Character(Unicode.Scalar(UInt8(bitPattern: type))))'")
        }
    }

    static func append(_ value: DBusValue, to message: OpaquePointer) throws(DBusError) {
        func check(_ result: Int32) throws(DBusError) {
            if result < 0 { throw .errno(result, "writing a D-Bus message") }
        }
        func basic<T: BitwiseCopyable>(_ type: Character, _ initial: T) throws(DBusError) {
            var value = initial
            try check(sd_bus_message_append_basic(message, CChar(type.asciiValue!), &value))
        }
        func text(_ type: Character, _ string: String) throws(DBusError) {
            let result = string.withCString { sd_bus_message_append_basic(message, CChar(type.asciiValue!), $0) }
            try check(result)
        }
        func container(_ type: Character, _ contents: String, _ body: () throws(DBusError) -> Void) throws(DBusError) {
            try check(contents.withCString { sd_bus_message_open_container(message, CChar(type.asciiValue!), $0) })
            try body()
            try check(sd_bus_message_close_container(message))
        }
        switch value {
        case .byte(let v): try basic("y", v)
        case .boolean(let v): try basic("b", Int32(v ? 1 : 0))
        case .int16(let v): try basic("n", v)
        case .uint16(let v): try basic("q", v)
        case .int32(let v): try basic("i", v)
        case .uint32(let v): try basic("u", v)
        case .int64(let v): try basic("x", v)
        case .uint64(let v): try basic("t", v)
        case .double(let v): try basic("d", v)
        case .string(let v): try text("s", v)
        case .objectPath(let v): try text("o", v)
        case .signature(let v): try text("g", v)
        case .bytes(let bytes):
            try check(bytes.withUnsafeBytes { sd_bus_message_append_array(message, CChar(UInt8(ascii: "y")), $0.baseAddress, $0.count) })
        case .array(let element, let items):
            try container("a", element) { () throws(DBusError) in
                for item in items { try append(item, to: message) }
            }
        case .dictionary(let key, let valueSignature, let entries):
            try container("a", "{" + key + valueSignature + "}") { () throws(DBusError) in
                for entry in entries {
                    try container("e", key + valueSignature) { () throws(DBusError) in
                        try append(entry.key, to: message)
                        try append(entry.value, to: message)
                    }
                }
            }
        case .structure(let fields):
            try container("r", fields.map(\.signature).joined()) { () throws(DBusError) in
                for field in fields { try append(field, to: message) }
            }
        case .variant(let inner):
            try container("v", inner.signature) { () throws(DBusError) in try append(inner, to: message) }
        }
    }
}
