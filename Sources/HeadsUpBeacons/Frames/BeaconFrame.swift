/// One decoded beacon advertisement.
public struct BeaconFrame: Equatable, Sendable {
    public var identity: BeaconIdentity
    /// Expected RSSI at 1 m (dBm), the reference for distance. iBeacon and
    /// AltBeacon carry it; Eddystone carries the power at 0 m, from which
    /// 1 m is 41 dB less.
    public var measuredPower: Int

    public init(identity: BeaconIdentity, measuredPower: Int) {
        self.identity = identity
        self.measuredPower = measuredPower
    }
}

/// Eddystone frames that carry no identity, decoded for display.
public enum EddystoneInfo: Equatable, Sendable {
    case url(String, txPowerAt0m: Int)
    case telemetry(EddystoneTelemetry)
}

/// Eddystone-TLM (unencrypted): the beacon's health.
public struct EddystoneTelemetry: Equatable, Sendable {
    /// Battery voltage in mV; `nil` when the beacon does not report it (0).
    public var batteryMillivolts: Int?
    /// °C; `nil` when not supported (0x8000).
    public var temperature: Double?
    public var advertisementCount: UInt32
    /// Seconds since power-on (0.1 s resolution on the air).
    public var uptime: Double
}
