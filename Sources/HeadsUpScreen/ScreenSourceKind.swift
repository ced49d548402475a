import HeadsUpDBus
import HeadsUpPipeline

/// The desktop services that say whether the phone is in use, and how each
/// one's answer reads as a ``ScreenState``. What the services mean was
/// read at their sources (docs/phones-and-boards.md, field notes): Phosh
/// and GNOME blank through `org.gnome.ScreenSaver`, KDE locks through
/// `org.freedesktop.ScreenSaver`, Mutter reports `PowerSaveMode` (never
/// updated on Phosh), and Phosh and KDE both set logind's `LockedHint`.
public enum ScreenSourceKind: String, Sendable, CaseIterable, Hashable {
    case gnomeScreenSaver = "org.gnome.ScreenSaver"
    case kdeScreenSaver = "org.freedesktop.ScreenSaver"
    case mutterPowerSave = "org.gnome.Mutter.DisplayConfig"
    case logind = "org.freedesktop.login1"

    /// The well-known bus name the service owns.
    public var service: String { rawValue }

    /// Whether the service lives on the system bus (logind) or the user's session bus.
    public var onSystemBus: Bool { self == .logind }

    /// A few words for logs and `headsup status`.
    public var label: String {
        switch self {
        case .gnomeScreenSaver: "GNOME/Phosh screen saver"
        case .kdeScreenSaver: "KDE screen locker"
        case .mutterPowerSave: "Mutter power save"
        case .logind: "logind session"
        }
    }

    /// The object the state is read from (logind's is the session's, found at run time).
    var path: String {
        switch self {
        case .gnomeScreenSaver: "/org/gnome/ScreenSaver"
        case .kdeScreenSaver: "/org/freedesktop/ScreenSaver"
        case .mutterPowerSave: "/org/gnome/Mutter/DisplayConfig"
        case .logind: "/org/freedesktop/login1"
        }
    }

    /// GetActive's reply or ActiveChanged's argument: a boolean, true meaning
    /// blanked (GNOME/Phosh) or locked (KDE). Nil: not a boolean.
    static func screenSaver(_ kind: ScreenSourceKind, active value: DBusValue) -> ScreenState? {
        guard let active = value.bool else { return nil }
        return active ? (kind == .gnomeScreenSaver ? .off : .locked) : .on
    }

    /// Mutter's PowerSaveMode: 0 on; 1 standby, 2 suspend, 3 off; -1 unknown. Nil: not an integer.
    static func powerSaveMode(_ value: DBusValue) -> ScreenState? {
        guard let mode = value.integer else { return nil }
        switch mode {
        case 0: return .on
        case 1...3: return .off
        default: return .unknown
        }
    }

    /// A logind session's properties: LockedHint, else IdleHint, else on.
    /// Nil: either hint missing or not a boolean.
    static func session(_ properties: [String: DBusValue]) -> ScreenState? {
        guard let locked = properties["LockedHint"]?.bool, let idle = properties["IdleHint"]?.bool else { return nil }
        return locked ? .locked : idle ? .idle : .on
    }
}
