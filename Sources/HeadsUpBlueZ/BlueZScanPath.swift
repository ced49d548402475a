/// How HeadsUp asks bluetoothd for advertisements.
///
/// Discovery is the default: with no discovery session of its own,
/// bluetoothd updates a device's RSSI only when it moves by 8 dBm or more
/// (src/adapter.c: `device_set_rssi` unless `filtered_discovery`), so on
/// the monitor path a beacon whose signal holds steady sends nothing, and
/// a pedestrian waiting at the crossing would leave its region after the
/// exit timeout. The monitor is for where that matters less than the
/// crowd's cost (and AdvertisementMonitorManager1 is still marked
/// experimental: bluetoothd offers it with `--experimental`).
public enum BlueZScanMode: String, Sendable, CaseIterable {
    /// Always discovery with a discovery filter.
    case discovery
    /// An advertisement monitor where bluetoothd offers one (passive scan,
    /// only matching devices reported), discovery where it does not.
    case monitor
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
