/// Where the broker is: `mqtt://host[:port]` (1883) or `mqtts://host[:port]`
/// (8883, TLS). Credentials are separate settings, never part of the URL.
public struct MQTTBroker: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var usesTLS: Bool

    public init(host: String, port: Int, usesTLS: Bool) {
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
    }

    /// Parses a broker URL; the error says what is wrong with it.
    public init(url: String) throws(MQTTError) {
        let schemes = [("mqtt://", false, 1883), ("mqtts://", true, 8883)]
        guard let (scheme, tls, defaultPort) = schemes.first(where: { url.lowercased().hasPrefix($0.0) }) else {
            throw .badURL(url, "expected mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("@") else { throw .badURL(url, "put the user name and password in notifications.mqtt.username and .password") }
        guard !rest.contains("/"), !rest.contains("?") else { throw .badURL(url, "a broker URL has no path or query") }
        var host = rest
        var port = defaultPort
        if rest.hasPrefix("[") {  // [IPv6]:port
            guard let close = rest.firstIndex(of: "]") else { throw .badURL(url, "unclosed [ in the host") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { throw .badURL(url, "expected :PORT after the host") }
                port = number
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let number = Int(rest[rest.index(after: colon)...]) else { throw .badURL(url, "the port is not a number") }
            port = number
        }
        guard !host.isEmpty else { throw .badURL(url, "no host") }
        guard (1...65535).contains(port) else { throw .badURL(url, "port \(port) is out of range 1–65535") }
        self.init(host: String(host), port: port, usesTLS: tls)
    }

    public var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(usesTLS ? "mqtts" : "mqtt")://\(shown):\(port)"
    }
}

/// What went wrong with MQTT, and what to do about it.
public enum MQTTError: Error, Sendable, Equatable, CustomStringConvertible {
    case badURL(String, String)
    case badSetting(String)
    /// libmosquitto refused a call: the function and its error text.
    case library(String, String)
    /// libmosquitto could not be loaded: its file name and dlopen's reason.
    case libraryMissing(String, String)

    public var description: String {
        switch self {
        case .badURL(let url, let why): "'\(url)' is not a broker URL: \(why)"
        case .badSetting(let why): why
        case .library(let call, let why): "\(call): \(why)"
        case .libraryMissing(let library, let why):
            "MQTT needs \(library) (Debian: apt install libmosquitto1), which could not be loaded: \(why)"
        }
    }
}
