/// Whether the phone is in use, as the desktop's screen and lock services
/// say. A warning is for someone looking at the screen: a blanked or locked
/// phone in a bag that the model takes for "in the hands" is not a
/// distraction. Pure data: the sources that read it live at the system edge.
public enum ScreenState: String, Sendable, Equatable, CaseIterable, Codable {
    /// The screen is on and unlocked.
    case on
    /// The screen is blanked (Phosh/GNOME's ScreenSaver active, Mutter's power save).
    case off
    /// The session is locked (KDE's ScreenSaver, logind's LockedHint).
    case locked
    /// The session is idle (logind's IdleHint).
    case idle
    /// No source answers: nothing is known, and nothing is gated.
    case unknown

    /// True for `on`, false for the states that mean "not in use", nil when unknown.
    public var inUse: Bool? {
        switch self {
        case .on: true
        case .off, .locked, .idle: false
        case .unknown: nil
        }
    }

    /// Several sources' answers as one: any source saying "not in use" wins
    /// (off before locked before idle, the strongest reason first), since a
    /// source that still says "on" may simply not know (Mutter's power save
    /// on Phosh is never updated); `unknown` when none answers.
    public static func combining(_ answers: some Sequence<ScreenState>) -> ScreenState {
        let answers = Set(answers)
        for state in [ScreenState.off, .locked, .idle, .on] where answers.contains(state) { return state }
        return .unknown
    }
}

/// `warning.only_while_screen_on`: whether a screen that is not in use
/// holds warnings back.
public enum ScreenGate: String, Sendable, Equatable, CaseIterable, Codable {
    /// On where a screen source answers; where none does (a board with no
    /// session bus) the state stays unknown and warnings follow the motion model.
    case auto
    /// On, and a missing screen source is worth a warning in the log.
    case on = "true"
    /// Off: warnings follow the motion model alone, whatever the screen.
    case off = "false"

    /// Whether this state holds a warning back under this gate.
    public func holdsBack(_ screen: ScreenState) -> Bool {
        self != .off && screen.inUse == false
    }
}

/// The screen state changed at `time`.
public struct ScreenChange: Sendable, Equatable {
    public var time: Double
    public var from: ScreenState
    public var to: ScreenState
    /// The phone went out of use with the gate on after a warning: what still
    /// demands attention (the buzz, the banner) should stop, since nobody is
    /// looking and the next crossing decides afresh.
    public var endsWarnings: Bool

    public init(time: Double, from: ScreenState, to: ScreenState, endsWarnings: Bool) {
        self.time = time
        self.from = from
        self.to = to
        self.endsWarnings = endsWarnings
    }
}
