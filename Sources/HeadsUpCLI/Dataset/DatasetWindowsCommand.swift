import ArgumentParser
import Foundation
import HeadsUpData

/// `headsup dataset windows`: the exact model inputs the data layer makes
/// from a session, one per line, so other tools (the Keras training script)
/// can be checked against it.
struct DatasetWindowsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "windows",
        abstract: "Print a session's model windows as CSV lines.",
        discussion: """
            Each line: start time (s), label (0/1), whether all samples share the label (0/1), \
            then the window's values flattened in the chosen layout, %.9g. A summary goes to \
            standard error.
            """)

    @Argument(help: "A session CSV file.", completion: .file())
    var path: String

    @OptionGroup var reading: SessionReadingOptions
    @OptionGroup var windowing: WindowingOptions

    @Option(help: "Flatten order: channel-major or time-major.")
    var layout: WindowLayout = .timeMajor

    @Flag(help: "Print only the summary, with the time reading and windowing took.")
    var summary = false

    func run() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let windows = try SessionWindowReader(
            path: path, csv: reading.csvOptions,
            resampling: ResamplingConfiguration(maximumGap: reading.gapLimit),
            windowing: windowing.configuration)
        var output = ""
        output.reserveCapacity(1 << 20)
        while let window = try windows.next() {
            if summary { continue }
            output += String(format: "%.6f", window.startTime)
            output += ",\(window.label.map { "\($0.rawValue)" } ?? ""),\(window.labelIsUniform ? 1 : 0)"
            for value in window.flattened(layout) { output += String(format: ",%.9g", Double(value)) }
            output += "\n"
            if output.utf8.count > 1 << 20 {
                FileHandle.standardOutput.write(Data(output.utf8))
                output.removeAll(keepingCapacity: true)
            }
        }
        FileHandle.standardOutput.write(Data(output.utf8))
        let elapsed = started.duration(to: clock.now)
        let milliseconds = Double(elapsed.components.seconds) * 1e3 + Double(elapsed.components.attoseconds) / 1e15
        let r = windows.stream.resampler
        printError(
            "\(sessionName(of: path)): \(r.inputCount) samples, \(r.droppedCount) dropped going back in time, "
                + "\(r.segmentCount) segments, \(r.outputCount) at \(r.configuration.rate) Hz, "
                + "\(windows.windower.windowCount) windows"
                + (windowing.labelPolicy == .uniform ? ", \(windows.windower.mixedLabelWindowCount) mixed-label windows left out" : "")
                + String(format: "; %.1f ms", milliseconds)
                + SessionStream.LeftOut(path: path, skippedRows: windows.stream.leftOut.skippedRows, droppedSamples: 0).notes.map { "; " + $0 }
                .joined())
    }
}
