/// How HeadsUp asks bluetoothd for advertisements.
public enum BlueZScanMode: String, Sendable, CaseIterable {
    /// An advertisement monitor where bluetoothd offers one (passive scan,
    /// only beacons reported), discovery where it does not.
    case automatic
    /// Always discovery with a discovery filter: for a controller whose
    /// monitor offload misbehaves.
    case discovery
}

/// The way advertisements reach HeadsUp now, and why: what `beacons` and
/// `status` show.
public enum BlueZScanPath: Sendable, Equatable, CustomStringConvertible {
    /// No adapter in use yet.
    case none
    /// An or-patterns advertisement monitor is registered; `active` once
    /// bluetoothd has called Activate.
    case monitor(adapter: String, active: Bool)
    /// Discovery (StartDiscovery with SetDiscoveryFilter), and why not the monitor.
    case discovery(adapter: String, reason: String)

    public var description: String {
        switch self {
        case .none: "no adapter in use"
        case .monitor(let adapter, let active):
            "advertisement monitor (or_patterns) on \(adapter)" + (active ? ", active" : ", waiting for bluetoothd to activate it")
        case .discovery(let adapter, let reason): "discovery on \(adapter), because \(reason)"
        }
    }

    /// "monitor", "discovery" or "none", for JSON.
    public var kind: String {
        switch self {
        case .none: "none"
        case .monitor: "monitor"
        case .discovery: "discovery"
        }
    }
}
