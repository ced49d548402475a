import Foundation
import Glibc
import HeadsUpBeacons
import HeadsUpModel
import Yams

/// Settings in layers, lowest first: built-in defaults < the model card <
/// configuration files (/etc/headsup, $XDG_CONFIG_HOME/headsup, --config) <
/// command-line flags. Each value is checked against its key when its layer
/// is added, so an error names the file it came from; `resolved` applies
/// the layers in order and remembers where each value came from.
public struct LayeredSettings: Sendable {
    public static let fileName = "config.yaml"
    public static let commandLine = "command line"

    /// A source's values, in the order they were given.
    struct Layer: Sendable {
        var source: String
        var values: [(key: SettingKey, value: SettingValue)] = []
    }

    private var layers: [Layer] = []
    /// Unknown keys, ignored with a warning (a newer or older config file).
    public private(set) var warnings: [String] = []

    public init() {}

    /// The standard files, lowest first. HEADSUP_SYSTEM_CONFIG_DIR replaces
    /// /etc/headsup (for tests and installs under another prefix).
    public static func standardFiles(environment: [String: String]) -> [String] {
        let system = environment["HEADSUP_SYSTEM_CONFIG_DIR"] ?? "/etc/headsup"
        let userBase = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? NSHomeDirectory()) + "/.config")
        return ["\(system)/\(fileName)", "\(userBase)/headsup/\(fileName)"]
    }

    /// The standard files that exist, then `explicit` (which must exist).
    public static func load(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SettingsError)
        -> LayeredSettings
    {
        var settings = LayeredSettings()
        for path in standardFiles(environment: environment) where FileManager.default.fileExists(atPath: path) {
            try settings.addFile(path)
        }
        if let explicit {
            guard FileManager.default.fileExists(atPath: explicit) else {
                throw SettingsError(source: explicit, message: "no such configuration file")
            }
            try settings.addFile(explicit)
        }
        return settings
    }

    /// A configuration file. One that holds a secret (a webhook URL with
    /// its token) must not be readable by every user, as ssh insists for
    /// its keys; readable by a group (the service's) is fine.
    public mutating func addFile(_ path: String) throws(SettingsError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError(source: path, message: "cannot be read") }
        try addYAML(String(decoding: data, as: UTF8.self), source: path)
        guard let layer = layers.last, layer.source == path,
            let secret = layer.values.first(where: { $0.key.isSecret && $0.value != .null })
        else { return }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IROTH != 0 {
            layers.removeLast()
            throw SettingsError(
                source: path, key: secret.key.name,
                message: "holds a secret but every user can read the file; run chmod o-r \(path) (or chmod 600) and try again")
        }
    }

    /// A YAML document of keys, nested (`beacons: {dwell: 2}`) or dotted (`beacons.dwell: 2`).
    public mutating func addYAML(_ text: String, source: String) throws(SettingsError) {
        if let (line, message) = SettingsYAMLLimits.problem(in: text) {
            throw SettingsError(source: line > 0 ? "\(source):\(line)" : source, message: message)
        }
        // One parse: the node tree shows repeated keys, which the constructed dictionary would hide.
        // The basic resolver: the default one's regular expressions would page ICU's regex engine into the daemon.
        let root: Node?
        do { root = try Yams.compose(yaml: text, .basic) } catch { throw SettingsError(source: source, message: "not valid YAML: \(error)") }
        guard let root else { return }  // an empty file changes nothing
        for key in Self.repeatedKeys(in: root, prefix: "") {
            warnings.append("\(source): key '\(key)' is given more than once; the last one is used")
        }
        if let (line, key, text) = SettingsYAMLValues.sexagesimalNumber(in: root) {
            throw SettingsError(
                source: line > 0 ? "\(source):\(line)" : source, key: key.isEmpty ? nil : key,
                message: "\(text) is YAML's base-60 number form, which HeadsUp does not take: write the number in seconds or units "
                    + "(1:30 is 90), or quote it if it is text")
        }
        let document = SettingsYAMLValues.value(of: root)
        guard let mapping = document as? [String: Any] else {
            throw SettingsError(source: source, message: "the top level must be a mapping of keys")
        }
        var layer = Layer(source: source)
        try collect(mapping, prefix: "", into: &layer)
        layers.append(layer)
    }

    /// Keys a mapping holds twice (Yams keeps the last without a word), dotted from the top.
    private static func repeatedKeys(in node: Node, prefix: String) -> [String] {
        guard let mapping = node.mapping else { return [] }
        var seen: Set<String> = []
        var repeated: [String] = []
        for (key, value) in mapping {
            guard let name = key.string else { continue }
            if !seen.insert(name).inserted { repeated.append(prefix + name) }
            repeated += repeatedKeys(in: value, prefix: prefix + name + ".")
        }
        return repeated
    }

    private mutating func collect(_ mapping: [String: Any], prefix: String, into layer: inout Layer) throws(SettingsError) {
        for (name, raw) in mapping.sorted(by: { $0.key < $1.key }) {
            let name = prefix + name
            if let nested = raw as? [String: Any], SettingsSchema.key(name) == nil {
                try collect(nested, prefix: name + ".", into: &layer)
                continue
            }
            guard let key = SettingsSchema.key(name) else {
                warnings.append("\(layer.source): unknown key '\(name)' ignored")
                continue
            }
            guard let value = SettingValue(yaml: raw) else {
                throw SettingsError(source: layer.source, key: name, message: "expected \(key.accepts)")
            }
            try Self.check(key, value, source: layer.source)
            if let earlier = layer.values.firstIndex(where: { $0.key.name == key.name }) {
                warnings.append(
                    "\(layer.source): key '\(name)' is given both dotted and nested; \(key.displayed(value)) is used, "
                        + "not \(key.displayed(layer.values[earlier].value))")
            }
            layer.values.append((key, value))
        }
    }

    /// A value from a flag (or another source above the files).
    public mutating func set(_ name: String, _ value: SettingValue, source: String = commandLine) throws(SettingsError) {
        guard let key = SettingsSchema.key(name) else { throw SettingsError(source: source, key: name, message: "no such setting") }
        try Self.check(key, value, source: source)
        if let last = layers.indices.last, layers[last].source == source {
            layers[last].values.append((key, value))
        } else {
            layers.append(Layer(source: source, values: [(key, value)]))
        }
    }

    private static func check(_ key: SettingKey, _ value: SettingValue, source: String) throws(SettingsError) {
        var scratch = Settings()
        do { try key.apply(value, to: &scratch) } catch {
            throw SettingsError(source: source, key: key.name, message: "\(key.displayed(value)): \(error.message)")
        }
    }

    /// The settings with every layer applied, lowest first: the defaults,
    /// `card` (its decision values and convention), the sensitivity preset
    /// (shifts from the values below it, when `warning.sensitivity` is not
    /// normal), then the files and flags.
    public func resolved(card: ModelCard? = nil) throws(SettingsError) -> ResolvedSettings {
        let below = card.map { [Self.layer(of: $0)] } ?? []
        let first = try Self.apply(below + layers)
        let sensitivity = first.settings.sensitivity
        guard sensitivity != .normal else { return first }
        let base = try Self.apply(below).settings
        var preset = Layer(source: "sensitivity \(sensitivity.rawValue)")
        for (name, value) in sensitivity.shifts(from: base) { preset.values.append((SettingsSchema.key(name)!, value)) }
        return try Self.apply(below + [preset] + layers)
    }

    private static func apply(_ layers: [Layer]) throws(SettingsError) -> ResolvedSettings {
        var resolved = ResolvedSettings()
        for layer in layers {
            for (key, value) in layer.values {
                do { try key.apply(value, to: &resolved.settings) } catch {
                    throw SettingsError(source: layer.source, key: key.name, message: "\(key.displayed(value)): \(error.message)")
                }
                resolved.sources[key.name] = layer.source
            }
        }
        try resolved.checkCombinations()
        return resolved
    }

    /// What a model card sets: its threshold, the convention it was trained
    /// in and the decision values tuned with it.
    static func layer(of card: ModelCard) -> Layer {
        var layer = Layer(source: "model card \(card.path)")
        var values: [(String, SettingValue)] = [
            ("distraction.enter_threshold", .number(card.threshold)), ("sensors.convention", .string(card.convention)),
        ]
        values += card.decisionSettings.map { ($0.key, .number($0.value)) }
        for (name, value) in values { layer.values.append((SettingsSchema.key(name)!, value)) }
        return layer
    }
}

/// Settings with the source of each value, for `config show` and for errors
/// about combinations of keys.
public struct ResolvedSettings: Sendable {
    public static let defaultSource = "default"

    public internal(set) var settings = Settings()
    /// Where each key's value came from; keys not listed have their default.
    public internal(set) var sources: [String: String] = [:]

    public func source(of key: String) -> String { sources[key] ?? Self.defaultSource }

    func error(_ key: String, _ message: String) -> SettingsError { SettingsError(source: source(of: key), key: key, message: message) }

    /// Rules that span keys: hysteresis must open the right way.
    func checkCombinations() throws(SettingsError) {
        let distraction = settings.distraction
        if let exit = distraction.exitThreshold, exit > distraction.enterThreshold {
            throw error("distraction.exit_threshold", "\(exit) must not exceed the enter threshold \(distraction.enterThreshold)")
        }
        do { _ = try settings.beacons.entryRule() } catch {
            let key =
                ["exit RSSI": "beacons.exit_rssi", "enter RSSI": "beacons.enter_rssi", "exit distance": "beacons.exit_distance"][error.setting]
                ?? "beacons"
            throw self.error(key, error.message)
        }
    }

    /// "key  value  source" rows, secrets redacted.
    public var rows: [(key: String, value: String, source: String)] {
        SettingsSchema.keys.map { ($0.name, $0.displayed($0.value(in: settings)), source(of: $0.name)) }
    }
}
