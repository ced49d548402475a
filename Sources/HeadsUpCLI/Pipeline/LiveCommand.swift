import ArgumentParser
import Foundation
import Glibc
import HeadsUpBeacons
import HeadsUpDBus
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpSensors
import Logging

/// The clock the live pipeline runs on: the sensors' kernel timestamps are
/// wall-clock (CLOCK_REALTIME), so beacons use it too and all events share
/// one time base.
struct WallClock: MonotonicClock {
    func now() -> Double { Date().timeIntervalSince1970 }
}

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
        var config = try runtime.loadConfig()
        if let uri { config.set("sensors.uri", .string(uri)) }
        let logger = Logger(label: "headsup.live")
        for warning in config.warnings { logger.warning("\(warning)") }
        let settings = try RuntimeSettings(config: config)
        let sinks = try settings.makeSinks()
        let dispatcher = NotificationDispatcher(sinks: sinks, retries: Int(config.number("notifications.retries") ?? 2)) { message in
            Logger(label: "headsup.notify").warning("\(message)")
        }

        var names: [SensorKind: String] = [:]
        names[.accelerometer] = config.string("sensors.accel")
        names[.gyroscope] = config.string("sensors.gyro")
        names[.magnetometer] = config.string("sensors.magn")
        let reader: IIOSensorReader
        do {
            reader = try IIOSensorReader(
                options: .init(uri: config.string("sensors.uri") ?? "local:", discovery: .init(deviceNames: names), convention: settings.convention)
            ) { logger.warning("\($0)") }
        } catch {
            throw CommandFailure("sensors: \(error)")
        }

        let clock = WallClock()
        var scanner: BlueZScanner?
        var connection: DBusConnection?
        if !settings.pipeline.regions.isEmpty {
            do {
                connection = try DBusConnection(.system)
                scanner = BlueZScanner(
                    connection: connection!,
                    options: .init(adapter: config.string("beacons.adapter"), stallTimeout: config.number("beacons.stall_timeout") ?? 30),
                    clock: clock
                ) { level, message in
                    level == .warning ? logger.warning("\(message)") : logger.info("\(message)")
                }
                try scanner!.start()
            } catch {
                throw CommandFailure("beacons: \(error). HeadsUp needs bluetoothd (BlueZ) on the system bus for its regions.")
            }
        } else {
            logger.warning("no beacon regions configured (beacons.regions or --region): scoring only, no warnings")
        }

        var latencies = LatencyRecorder()
        let timedScorer = TimedScorer(inner: settings.scorer)
        let pipeline = HeadsUpPipeline(scorer: timedScorer, configuration: settings.pipeline)
        let signals = TerminationSignals()
        let usr1 = CounterRequest()
        let systemd = SystemdNotifier()
        let interactive = !json && isatty(STDOUT_FILENO) != 0
        let formatter = PipelineEventFormatter(origin: clock.now(), includeScores: scores)
        var screen = StatusScreen()
        var lastDraw = Date.distantPast
        var lastPing = Date.distantPast
        let start = Date()

        reader.start()
        systemd.ready()
        logger.info("live: model \(settings.model.info.file) (\(settings.layout.rawValue)), threshold \(settings.pipeline.distraction.enterThreshold), \(settings.pipeline.regions.count) regions, \(sinks.count) sinks")
        func counters() -> String {
            let p = pipeline.counters, s = reader.counters, n = dispatcher.counters
            func ms(_ value: Double?) -> String { value.map { String(format: "%.2f ms", $0 * 1000) } ?? "-" }
            return "windows scored \(p.windowsScored), skipped \(p.windowsSkipped); scoring latency p50 \(ms(latencies.percentile(50))) p90 \(ms(latencies.percentile(90))) p99 \(ms(latencies.percentile(99))); "
                + "samples \(s.samples), lost by devices \(s.droppedByDevice), dropped by alignment \(s.droppedByAlignment); "
                + "warnings \(p.warnings); notifications sent \(n.sent), failed \(n.failed)"
        }
        while !signals.requested {
            if let seconds, Date().timeIntervalSince(start) >= seconds { break }
            var events = pipeline.process(samples: reader.poll(timeout: 0.05))
            for duration in timedScorer.drain() { latencies.add(duration) }
            let sightings = (try? scanner?.poll(timeout: 0)) ?? []
            events += pipeline.process(sightings: sightings ?? [], at: clock.now())
            var output = ""
            for event in events {
                screen.record(event, clock: clock.now())
                if case .warning(let warning) = event {
                    dispatcher.enqueue(warning.notification)
                    logger.notice("warning at \(warning.region): \(warning.title) \(warning.body)")
                }
                if case .decision(let decision) = event {
                    logger.info("decision \(decision.region) on \(decision.trigger): \(decision.outcome.rawValue), distracted \(decision.distracted), smoothed score \(decision.smoothedScore ?? -1), rssi \(decision.rssi), \(decision.proximity.rawValue)")
                }
                if !interactive, let line = formatter.json(event) { output += line + "\n" }
            }
            if !output.isEmpty { FileHandle.standardOutput.write(Data(output.utf8)) }
            if interactive, Date().timeIntervalSince(lastDraw) >= 0.5 {
                lastDraw = Date()
                let text = screen.render(pipeline: pipeline, sensors: reader.latest, beacons: pipeline.monitor.beacons, regions: settings.pipeline.regions)
                FileHandle.standardOutput.write(Data(text.utf8))
            }
            if let interval = systemd.watchdogInterval, Date().timeIntervalSince(lastPing) >= interval {
                systemd.watchdog()
                lastPing = Date()
            }
            if usr1.take() { logger.notice("counters: \(counters())") }
        }
        systemd.stopping()
        scanner?.stop()
        reader.stop()
        dispatcher.finish()
        printError("headsup live: \(counters())")
    }
}

/// SIGUSR1 as a request to print the counters.
final class CounterRequest {
    private let source: any DispatchSourceSignal
    private let flag = Flag()

    private final class Flag: @unchecked Sendable {
        let lock = NSLock()
        var value = false
    }

    init() {
        signal(SIGUSR1, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGUSR1, queue: DispatchQueue(label: "headsup.usr1"))
        source.setEventHandler { [flag] in flag.lock.withLock { flag.value = true } }
        source.resume()
    }

    func take() -> Bool { flag.lock.withLock { defer { flag.value = false }; return flag.value } }
}

/// Measures how long each window takes to score.
final class TimedScorer: WindowScorer, @unchecked Sendable {
    let inner: any WindowScorer
    private let lock = NSLock()
    private var durations: [Double] = []

    init(inner: any WindowScorer) { self.inner = inner }

    func score(_ window: HeadsUpData.MotionWindow) -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let result = inner.score(window)
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9
        lock.withLock { durations.append(elapsed) }
        return result
    }

    func drain() -> [Double] { lock.withLock { defer { durations.removeAll() }; return durations } }
}

import HeadsUpData
