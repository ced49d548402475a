import ArgumentParser
import Foundation
import Glibc
import HeadsUpData
import HeadsUpSensors
import HeadsUpSystem

extension PhonePosition: ExpressibleByArgument {}

/// `headsup record`: a labelled session from the live sensors, in the seed's
/// CSV format at 50 Hz, durable to the last second, with a sidecar beside it
/// (`NAME.json`: the phone's position, the devices and channels, the start)
/// for a personal model (`tools/training/personalize.py`).
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a labelled session (CSV, 50 Hz) from the IIO sensors.",
        discussion: """
            Rows are written and fsynced at least once a second, so a crash or kill -9 loses at \
            most the last second. SIGINT/SIGTERM flush, close and print a summary. An existing \
            file is never overwritten. The CSV's first column is 1 for hands and 0 for every \
            carry position; the position goes into NAME.json beside the CSV. On a terminal: \
            h = hands, p = back to the carry position (pocket when recording started in the \
            hands), space = switch, q = stop.
            """)

    @Option(help: "Where the phone is: the hands (label 1) or a carry position (label 0); 1 and 0 still mean hands and pocket.")
    var label: PhonePosition

    @Option(help: "The session file to create.", completion: .file())
    var out: String

    @Option(help: "Stop after this many seconds.")
    var duration: Double?

    @OptionGroup var sensors: SensorOptions

    func validate() throws {
        if let duration, !(duration > 0 && duration.isFinite) { throw ValidationError("--duration takes seconds > 0") }
        if RecordingSidecar.path(forSession: out) == out {
            throw ValidationError("--out \(out): the sidecar NAME.json goes beside it; name the session NAME.csv")
        }
    }

    func run() throws {
        // The sensors first: a start that fails leaves no empty file behind to refuse the next try.
        let reader = try sensors.makeReader()
        let writer = try SessionCSVWriter(creatingNewFileAt: out)
        let clock = SystemMonotonicClock()
        // Wall time once, here: the file's timestamps follow the monotonic clock from this anchor.
        let wallAnchor = SystemWallClock().secondsSince1970() - clock.now()
        let recorder = SessionRecorder(writer: writer, label: label.label, wallAnchor: wallAnchor)
        let sidecarPath = RecordingSidecar.path(forSession: out)
        let sidecar = RecordingSidecar(
            session: (out as NSString).lastPathComponent, position: label, context: sensors.uri, sources: reader.sources,
            rate: ResamplingConfiguration().rate, convention: sensors.convention, startTime: wallAnchor + clock.now())
        do { try sidecar.write(to: sidecarPath) } catch {
            // Nothing recorded yet: leave no CSV without its position behind.
            try? writer.close()
            unlink(out)
            throw CommandError(error.description)
        }
        let signals = TerminationSignals()
        let terminal = RawTerminal()
        let interactive = terminal != nil && isatty(STDERR_FILENO) != 0
        let start = clock.now()
        var lastFlush = start
        var lastStatus = -Double.infinity
        var labelChanges = 0
        var failure: SystemCallError?
        reader.start()
        recording: while !signals.requested {
            if let duration, clock.now() - start >= duration { break }
            for event in reader.poll(timeout: 0.1) {
                do {
                    try recorder.record(event)
                } catch {
                    failure = error
                    break recording
                }
            }
            if clock.now() - lastFlush >= 1 {
                do { try recorder.flush() } catch {
                    failure = error
                    break
                }
                lastFlush = clock.now()
            }
            if let key = terminal?.key() {
                let previous = recorder.label
                switch key {
                case "h": recorder.label = .hands
                case "p": recorder.label = label.carryPosition.label
                case " ": recorder.label = recorder.label == .hands ? label.carryPosition.label : .hands
                case "q": break recording
                default: break
                }
                if recorder.label != previous { labelChanges += 1 }
            }
            if interactive, clock.now() - lastStatus >= 0.5 {
                lastStatus = clock.now()
                let c = reader.counters
                let status = String(
                    format: "\r%6.1f s  %6d samples  %5.1f Hz  drops %d  label %@   ", clock.now() - start,
                    recorder.sampleCount, recorder.effectiveRate, c.droppedByDevice + c.droppedByAlignment,
                    recorder.label == .hands ? PhonePosition.hands.rawValue : label.carryPosition.rawValue)
                FileHandle.standardError.write(Data(status.utf8))
            }
        }
        reader.stop()
        // What the devices read before they stopped: a polled device hands its readings over every 0.24 s.
        if failure == nil {
            for event in reader.poll(timeout: 0) {
                do { try recorder.record(event) } catch {
                    failure = error
                    break
                }
            }
        }
        if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
        do { try recorder.close() } catch { failure = failure ?? error }
        let finished = sidecar.finished(
            samples: writer.acknowledgedRowCount, firstTime: recorder.firstTime.map { $0 + wallAnchor },
            lastTime: recorder.lastTime.map { $0 + wallAnchor }, labelChanges: labelChanges)
        var sidecarFailure: RecordingSidecarError?
        do { try finished.write(to: sidecarPath) } catch { sidecarFailure = error }
        let c = reader.counters
        let seconds = (recorder.lastTime ?? 0) - (recorder.firstTime ?? 0)
        printError(
            "recorded \(out): \(recorder.sampleCount) samples (\(String(format: "%.1f", seconds)) s at \(String(format: "%.1f", recorder.effectiveRate)) Hz), "
                + "\(writer.acknowledgedRowCount) on disk, \(recorder.missingCount) grid points missing, "
                + "\(c.droppedByDevice) samples lost by devices, \(labelChanges) label changes; position \(label) in \(sidecarPath)")
        if let sidecarFailure { printError("warning: \(sidecarFailure.description); it still holds the position from the start") }
        if let failure { throw CommandError("recording stopped: \(failure.description); the rows before it are on disk") }
    }
}
