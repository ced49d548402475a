import ArgumentParser
import Glibc
import HeadsUpData
import HeadsUpRuntime
import HeadsUpSystem
import Logging

/// `headsup live`: HeadsUp's main job on a board or Linux phone.
struct LiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "live",
        abstract: "Score the motion continuously and warn when a distracted user enters a crossing region.",
        discussion: """
            Sensors (IIO) → 50 Hz → windows → the model → a smoothed distraction state; BLE beacon regions (BlueZ) \
            alongside; a warning on region entry (and while inside, throttled) when distracted and walking, to every \
            configured sink. On a terminal it draws a status screen; otherwise, or with --json, one JSON line per event. \
            SIGTERM/SIGINT stop it; SIGUSR1 prints the counters. Under systemd (Type=notify) it reports READY and pings \
            the watchdog. --simulate runs the same job on a recorded scenario instead of sensors and beacons.
            """)

    @OptionGroup var runtime: RuntimeOptions
    @Option(help: "IIO context (overrides sensors.uri).") var uri: String?
    @Flag(help: "One JSON line per event instead of the status screen.") var json = false
    @Flag(help: "Also output every scored window.") var scores = false
    @Option(help: "Stop after this many seconds (for tests and trials).") var seconds: Double?
    @Option(help: "A scenario (a folder with session.csv and beacons.csv, or a bundled name: crossing-hands) instead of IIO and BlueZ.")
    var simulate: String?
    @Option(help: "With --simulate: play this many times faster than real time.") var speed = 1.0
    @Option(help: "With --simulate: a location track (time,latitude,longitude,accuracy,speed,heading) instead of the folder's locations.csv.")
    var locations: String?
    /// With --simulate: the recording is read as `replay` reads it.
    @OptionGroup(title: "Reading the --simulate recording") var reading: SessionReadingOptions

    func validate() throws {
        if let seconds, !(seconds > 0 && seconds.isFinite) { throw ValidationError("--seconds takes a number of seconds > 0") }
        let readingOptions = reading.csvOptions
        let readsDefault =
            !readingOptions.lenient && readingOptions.timeUnit == nil && readingOptions.accelerationUnit == nil
            && readingOptions.sourceConvention == nil && reading.gapLimit == ResamplingConfiguration().maximumGap
        if simulate == nil, !readsDefault { throw ValidationError("the session reading options go with --simulate (a recording)") }
    }

    func run() throws {
        var layers = try runtime.loadSettings()
        if let uri { try runtime.override(&layers, "sensors.uri", .string(uri)) }
        let logger = Logger(label: "headsup.live")
        for warning in layers.warnings { logger.warning("\(warning)") }
        let setup = try runtime.setUp(layers)
        let session: LiveSession
        var recording: Simulation.RecordedMotion?
        do {
            if let simulate {
                guard speed > 0, speed.isFinite else { throw ValidationError("--speed takes a positive factor") }
                (session, recording) = try LiveSession.simulating(
                    try BundledData.forThisProcess().scenario(simulate, locations: locations), speed: speed, setup: setup, csv: reading.csvOptions,
                    resampling: ResamplingConfiguration(maximumGap: reading.gapLimit), logger: logger)
            } else {
                session = try LiveSession.onDevices(setup: setup, logger: logger)
            }
            try session.start()
        }
        let view = LiveView(session: session, interactive: !json && isatty(STDOUT_FILENO) != 0, includeScores: scores)
        let (signals, counterRequests, clock) = (TerminationSignals(), CounterRequest(), SystemMonotonicClock())
        let end = seconds.map { clock.now() + $0 }
        while !signals.requested, end.map({ clock.now() < $0 }) ?? true, !(recording?.finished ?? false) {
            view.show(session.step())
            if counterRequests.take() { logger.notice("counters: \(session.summary)") }
        }
        session.stop()
        printError("headsup live: \(session.summary)" + (recording?.leftOut.notes ?? []).map { "; " + $0 }.joined())
    }
}
