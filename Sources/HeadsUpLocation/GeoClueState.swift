/// What the GeoClue2 client is doing, named so the log and `status` say
/// what the user can do about it. Beacons work in every state.
public enum GeoClueState: Sendable, Equatable, CustomStringConvertible {
    /// Asking GeoClue for a client.
    case starting
    /// GeoClue2 is not on the system bus and cannot be started.
    case unavailable(String)
    /// The user has not turned Location on (GeoClue: "Geolocation disabled for UID …").
    case locationOff
    /// GeoClue waits for a location agent of this user (no desktop session:
    /// a system service, or a session without Phosh/GNOME's agent).
    case noAgent
    /// Started; no fix has come yet.
    case noFix
    /// Fixes are arriving.
    case fixes
    /// GeoClue left the bus (it exits 60 s after its last client, or
    /// crashed); the client starts again when it can.
    case restarting
    /// Another refusal, with GeoClue's words.
    case failed(String)

    public var description: String {
        switch self {
        case .starting: "starting: asking GeoClue2 for a client"
        case .unavailable(let why): "GeoClue2 unavailable (\(why)); install geoclue-2.0, or set location.source: none"
        case .locationOff:
            "Location off: turn on Settings → Privacy → Location Services (gsettings set org.gnome.system.location enabled true); beacons still warn"
        case .noAgent:
            "no agent: GeoClue2 waits for a location agent for this user (run HeadsUp as a user service in the phone's session, or use gpsd on a board)"
        case .noFix: "no fix yet: GeoClue2 started, waiting for a position"
        case .fixes: "receiving fixes from GeoClue2"
        case .restarting: "GeoClue2 left the bus; starting again when it returns"
        case .failed(let why): "GeoClue2 refused: \(why)"
        }
    }

    /// The state a refused `Start()` (or `GetClient()`) means, from GeoClue's error.
    public static func refusal(name: String?, message: String, timedOut: Bool) -> GeoClueState {
        let lower = message.lowercased()
        if lower.contains("disabled") { return .locationOff }
        if lower.contains("no agent") || timedOut { return .noAgent }
        if name == "org.freedesktop.DBus.Error.ServiceUnknown" || name == "org.freedesktop.DBus.Error.NameHasNoOwner"
            || name == "org.freedesktop.DBus.Error.Spawn.ServiceNotFound"
        {
            return .unavailable(message.isEmpty ? "no such service" : message)
        }
        return .failed(message.isEmpty ? (name ?? "unknown error") : message)
    }
}
