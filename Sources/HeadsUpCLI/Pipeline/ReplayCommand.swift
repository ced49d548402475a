import ArgumentParser
import Foundation
import HeadsUpData
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpRuntime
import Logging

/// `headsup replay`: the live pipeline on a recorded session and a beacon
/// scenario, printing what live would have done.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run the pipeline on a recorded session and a beacon scenario.",
        discussion: """
            SESSION is a session CSV, or a scenario folder holding session.csv and beacons.csv \
            (datasets/scenarios/crossing-hands). At --speed max (the default) there is no wall \
            clock inside the pipeline: the output is the same byte for byte on every run. Times \
            are seconds since the session's first sample.
            """)

    @Argument(help: "A session CSV, a scenario folder, or the name of a bundled scenario (crossing-hands).", completion: .file())
    var session: String

    @Option(help: "Beacon scenario file (time,beacon,rssi,power lines; see datasets/scenarios).", completion: .file())
    var beacons: String?

    @Option(
        help:
            "Screen track (time,state lines: on, off, locked, idle, unknown) for warning.only_while_screen_on; default: the folder's screen.csv, if any.",
        completion: .file())
    var screen: String?

    @Option(
        help: "Location track (\(LocationTrack.header) lines) played against crossings.file; default: the folder's locations.csv, if any.",
        completion: .file())
    var locations: String?

    @Option(help: "Replay speed: max, or a factor of real time (1 = as recorded).")
    var speed: String = "max"

    @Flag(help: "One JSON object per event.")
    var json = false

    @Flag(help: "Also print every scored window.")
    var scores = false

    @Flag(help: "Also deliver warnings to the configured notification sinks.")
    var deliver = false

    @Option(help: "Play the session and its beacons this many times back to back as one stream (a soak test); reports memory at start and end.")
    var repeats = 1

    @OptionGroup var reading: SessionReadingOptions
    @OptionGroup var runtime: RuntimeOptions

    func validate() throws {
        guard repeats >= 1 else { throw ValidationError("--repeats must be at least 1") }
        if speed != "max" {
            guard let factor = Double(speed), factor > 0 else { throw ValidationError("--speed takes max or a positive number") }
        }
    }

    func run() throws {
        let scenario = try BundledData.forThisProcess().scenario(session, beacons: beacons, screen: screen, locations: locations)
        let replay = ScenarioReplay(
            scenario: scenario, csv: reading.csvOptions, resampling: ResamplingConfiguration(maximumGap: reading.gapLimit), repeats: repeats)
        let layers = try replay.settings(try runtime.loadSettings(), keepRegions: !runtime.regions.isEmpty, keepCrossings: runtime.crossings != nil)
        for warning in layers.warnings { printError("warning: \(warning)") }
        let setup = try runtime.setUp(layers)
        var dispatcher: NotificationDispatcher?
        if deliver {
            let logger = Logger(label: "headsup.notify")
            dispatcher = NotificationDispatcher(
                sinks: try setup.makeSinks(logger: logger), retries: setup.settings.notifications.retries, logger: logger)
        }
        let factor = Double(speed)
        let started = Date()
        var output = ""
        func write() {
            if !output.isEmpty { FileHandle.standardOutput.write(Data(output.utf8)) }
            output.removeAll(keepingCapacity: true)
        }
        let memoryAtStart = ResidentMemory.current()
        let summary = try replay.run(
            setup: setup, dispatcher: dispatcher,
            pace: { dataTime in
                guard let factor else { return }
                write()
                let wait = started.addingTimeInterval(dataTime / factor).timeIntervalSinceNow
                if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            },
            emit: { event, origin in
                let formatter = PipelineEventFormatter(origin: origin, includeScores: scores)
                if let line = json ? formatter.json(event) : formatter.text(event) { output += line + "\n" }
                if output.utf8.count > 1 << 16 { write() }
            })
        write()
        if repeats > 1 {
            let c = summary.counters
            let soak = SoakFigures(
                hoursOfData: Double(c.samples) / 50 / 3600, seconds: Date().timeIntervalSince(started), residentMBAtStart: memoryAtStart / 1e6,
                residentMBAtEnd: ResidentMemory.current() / 1e6, windowsSkipped: c.windowsSkipped, samples: c.samples, warnings: c.warnings)
            printError(json ? try soak.jsonLine() : soak.text)
        }
        printError(summary.description)
    }
}

/// What `replay --repeats` reports of a soak: a line of text, or with
/// --json one JSON object (`{"soak": {...}}`) on standard error.
struct SoakFigures: Codable {
    var hoursOfData: Double
    var seconds: Double
    var residentMBAtStart: Double
    var residentMBAtEnd: Double
    var windowsSkipped: Int
    var samples: Int
    var warnings: Int

    var text: String {
        String(
            format: "soak: %.1f h of data in %.1f s; resident memory %.1f MB at start, %.1f MB at end; %d windows skipped, %d samples",
            hoursOfData, seconds, residentMBAtStart, residentMBAtEnd, windowsSkipped, samples)
    }

    func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(["soak": self]), as: UTF8.self)
    }
}
