import Foundation
import HeadsUpPipeline
import HeadsUpScreen
import Logging

extension LiveSession {
    /// Starts the screen source, saying what it cannot reach: a warning when
    /// `only_while_screen_on: true` asked for it, a note under `auto` (a
    /// board's system service has no session bus, and needs none).
    func startScreen() {
        guard let screen = parts.screen else { return }
        let gate = pipeline.configuration.warning.onlyWhileScreenOn
        for problem in screen.start() {
            if gate == .on {
                logger.warning("screen: \(problem); warning.only_while_screen_on is true, but this source cannot gate warnings")
            } else {
                logger.info("screen: \(problem)")
            }
        }
    }

    /// Logs a screen change; one that takes the phone out of use after a
    /// warning ends what still plays (feedbackd's buzz, the banner).
    func reportScreen(_ change: ScreenChange) {
        logger.info("screen \(change.to.rawValue) (was \(change.from.rawValue))")
        guard change.endsWarnings else { return }
        logger.notice("the phone is out of use (\(change.to.rawValue)): the warning's vibration and banner end")
        parts.dispatcher?.acknowledge()
    }
}

extension LiveSession.Parts {
    /// The desktop's screen and lock services (``ScreenMonitor``) when
    /// `gate` may use them; with `only_while_screen_on: false` nothing is asked.
    public mutating func attachScreen(_ gate: ScreenGate, environment: [String: String], logger: Logger) {
        guard gate != .off else { return }
        screen = ScreenMonitor(options: .from(environment: environment), logger: logger)
    }
}
