import ArgumentParser
import Glibc
import HeadsUpData
import HeadsUpRuntime
import Logging

/// `headsup live`: HeadsUp's main job on a board or Linux phone.
struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Score the motion continuously and warn when a distracted user enters a crossing region.",
        discussion: """
            Sensors (IIO) → 50 Hz → windows → the model → a smoothed distraction state; BLE beacon \
            regions (BlueZ) alongside; a warning on region entry (and while inside, throttled) \
            when distracted, to every configured sink. On a terminal it draws a status screen; \
            otherwise, or with --json, one JSON line per event. SIGTERM/SIGINT stop it cleanly; \
            SIGUSR1 prints the counters. Under systemd (Type=notify) it reports READY and pings \
            the watchdog.
            """)

    @OptionGroup var runtime: RuntimeOptions

    @Option(help: "IIO context (overrides sensors.uri).")
    var uri: String?

    @Flag(help: "One JSON line per event instead of the status screen.")
    var json = false

    @Flag(help: "Also output every scored window.")
    var scores = false

    @Option(help: "Stop after this many seconds (for tests and trials).")
    var seconds: Double?

    func run() throws {
        var layers = try runtime.loadSettings()
        if let uri { try runtime.override(&layers, "sensors.uri", .string(uri)) }
        let logger = Logger(label: "headsup.live")
        for warning in layers.warnings { logger.warning("\(warning)") }
        let setup = try runtime.setUp(layers)
        let session: LiveSession
        do { session = try LiveSession.onDevices(setup: setup, logger: logger) } catch { throw CommandError(error.description) }
        let view = LiveView(session: session, interactive: !json && isatty(STDOUT_FILENO) != 0, includeScores: scores)
        let signals = TerminationSignals()
        let counterRequests = CounterRequest()
        let clock = SystemMonotonicClock()
        let end = seconds.map { clock.now() + $0 }
        do { try session.start() } catch { throw CommandError(error.description) }
        logger.info("live: model \(setup.model.info.file) (\(setup.layout.rawValue)), threshold \(setup.settings.distraction.enterThreshold)")
        while !signals.requested, end.map({ clock.now() < $0 }) ?? true {
            view.show(session.step())
            if counterRequests.take() { logger.notice("counters: \(session.summary)") }
        }
        session.stop()
        printError("headsup live: \(session.summary)")
    }
}
