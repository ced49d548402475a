import Foundation
import Yams

/// A bad configuration value, naming the key and the file it came from.
struct ConfigError: Error, CustomStringConvertible {
    var source: String
    var key: String?
    var message: String
    var description: String { key.map { "\(source): \($0): \(message)" } ?? "\(source): \(message)" }
}

/// HeadsUp's configuration, layered: built-in defaults < /etc/headsup/ <
/// $XDG_CONFIG_HOME/headsup/ < --config FILE < command-line flags. Every
/// value remembers where it came from, for `headsup config show`.
struct LayeredConfig {
    static let fileName = "config.yaml"

    private(set) var values: [String: (value: ConfigValue, source: String)] = [:]
    private(set) var warnings: [String] = []

    init() {
        for key in ConfigSchema.keys { values[key.name] = (key.defaultValue, "default") }
    }

    /// The standard files in order, lowest first. HEADSUP_SYSTEM_CONFIG_DIR
    /// replaces /etc/headsup (for tests and non-root installs).
    static func standardFiles(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let system = environment["HEADSUP_SYSTEM_CONFIG_DIR"] ?? "/etc/headsup"
        let userBase = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return ["\(system)/\(fileName)", "\(userBase)/headsup/\(fileName)"]
    }

    /// Loads the standard files that exist, then `explicit` (which must exist).
    static func load(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> LayeredConfig {
        var config = LayeredConfig()
        for path in standardFiles(environment: environment) where FileManager.default.fileExists(atPath: path) {
            try config.apply(file: path)
        }
        if let explicit {
            guard FileManager.default.fileExists(atPath: explicit) else {
                throw ConfigError(source: explicit, key: nil, message: "no such file")
            }
            try config.apply(file: explicit)
        }
        return config
    }

    mutating func apply(file path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(source: path, key: nil, message: "cannot be read")
        }
        try apply(yaml: String(decoding: data, as: UTF8.self), source: path)
    }

    mutating func apply(yaml text: String, source: String) throws {
        let document: Any?
        do {
            document = try Yams.load(yaml: text)
        } catch {
            throw ConfigError(source: source, key: nil, message: "not valid YAML: \(error)")
        }
        guard let document else { return }  // an empty file changes nothing
        guard let mapping = document as? [String: Any] else {
            throw ConfigError(source: source, key: nil, message: "the top level must be a mapping of keys")
        }
        try apply(mapping, prefix: "", source: source)
    }

    private mutating func apply(_ mapping: [String: Any], prefix: String, source: String) throws {
        for (name, raw) in mapping.sorted(by: { $0.key < $1.key }) {
            let key = prefix + name
            if let nested = raw as? [String: Any], ConfigSchema.key(key) == nil {
                try apply(nested, prefix: key + ".", source: source)
                continue
            }
            guard let schema = ConfigSchema.key(key) else {
                warnings.append("\(source): unknown key '\(key)' ignored")
                continue
            }
            values[key] = (try Self.convert(raw, for: schema, source: source), source)
        }
    }

    /// A value given on the command line.
    mutating func set(_ key: String, _ value: ConfigValue, source: String = "command line") {
        precondition(ConfigSchema.key(key) != nil, "unknown config key \(key)")
        values[key] = (value, source)
    }

    static func convert(_ raw: Any, for key: ConfigSchema.Key, source: String) throws -> ConfigValue {
        func bad(_ expected: String) -> ConfigError {
            ConfigError(source: source, key: key.name, message: "expected \(expected), found '\(raw)'")
        }
        if raw is NSNull { return .null }
        switch key.kind {
        case .string:
            if let text = raw as? String { return .string(text) }
            throw bad("text")
        case .number:
            if let number = raw as? Double, number.isFinite { return .number(number) }
            if let number = raw as? Int { return .number(Double(number)) }
            throw bad("a number")
        case .integer:
            if let number = raw as? Int { return .number(Double(number)) }
            throw bad("a whole number")
        case .boolean:
            if let flag = raw as? Bool { return .boolean(flag) }
            throw bad("true or false")
        case .stringList:
            if let text = raw as? String { return .list([text]) }
            if let items = raw as? [Any] {
                let texts = items.compactMap { $0 as? String }
                guard texts.count == items.count else { throw bad("a list of text") }
                return .list(texts)
            }
            throw bad("a list of text")
        case .choice(let options):
            if let text = raw as? String, options.contains(text) { return .string(text) }
            throw bad("one of \(options.joined(separator: ", "))")
        }
    }

    // MARK: Typed access

    func value(_ key: String) -> ConfigValue { values[key]!.value }
    func source(_ key: String) -> String { values[key]!.source }

    func string(_ key: String) -> String? {
        if case .string(let text) = value(key) { return text }
        return nil
    }

    func number(_ key: String) -> Double? {
        if case .number(let number) = value(key) { return number }
        return nil
    }

    func bool(_ key: String) -> Bool? {
        if case .boolean(let flag) = value(key) { return flag }
        return nil
    }

    func list(_ key: String) -> [String] {
        if case .list(let items) = value(key) { return items }
        return []
    }

    /// "key = value  (source)" lines, for `headsup config show`.
    func rendered() -> String {
        var table = TextTable(header: ["key", "value", "from"])
        for key in ConfigSchema.keys {
            table.rows.append([key.name, value(key.name).description, source(key.name)])
        }
        return table.renderedForTerminal()
    }
}
