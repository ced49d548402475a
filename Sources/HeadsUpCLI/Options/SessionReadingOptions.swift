import ArgumentParser
import HeadsUpData

extension TimeUnit: ExpressibleByArgument {}
extension AbsentSensor: ExpressibleByArgument {}
extension AxisConvention: ExpressibleByArgument {}

extension AccelerationUnit: ExpressibleByArgument {
    public init?(argument: String) {
        switch argument.lowercased() {
        case "g": self = .standardGravity
        case "m/s2", "m/s²", "ms2", "mps2": self = .metersPerSecondSquared
        default: return nil
        }
    }
}

/// How session files are read; shared by every command that reads them.
struct SessionReadingOptions: ParsableArguments {
    @Flag(help: "Skip malformed rows (and count them) instead of stopping at the first one.")
    var lenient = false

    @Option(
        name: .customLong("time-unit"),
        help: "Timestamp unit: s, ms, us or ns. Detected from the data when not given.")
    var timeUnit: TimeUnit?

    @Option(
        name: .customLong("accel-unit"),
        help: "Accelerometer unit: g or m/s2. Detected from the data when not given.")
    var accelerationUnit: AccelerationUnit?

    @Option(
        name: .customLong("source-axes"),
        help: "Axis convention the file was recorded in: coremotion or android. Guessed from the units when not given (m/s² → android).")
    var sourceConvention: AxisConvention?

    @Option(
        name: .customLong("gap-limit"),
        help: "A step longer than this many seconds is a gap: it splits the stream.")
    var gapLimit = ResamplingConfiguration().maximumGap

    @Option(
        name: .customLong("without"),
        help: ArgumentHelp(
            "Read the sessions as a device without this sensor would give them: its inputs zero (gyroscope or magnetometer; repeatable).",
            valueName: "sensor"))
    var absentSensors: [AbsentSensor] = []

    func validate() throws {
        guard gapLimit > 0, gapLimit.isFinite else {
            throw ValidationError("--gap-limit must be a positive number of seconds, got \(gapLimit)")
        }
    }

    var csvOptions: SessionCSVOptions {
        SessionCSVOptions(
            lenient: lenient, timeUnit: timeUnit, accelerationUnit: accelerationUnit, sourceConvention: sourceConvention,
            absentSensors: Set(absentSensors))
    }

    /// Options that also deliver the data in a model's axis convention.
    func csvOptions(for target: AxisConvention) -> SessionCSVOptions {
        var options = csvOptions
        options.targetConvention = target
        return options
    }
}
