import Glibc
import HeadsUpData
import Logging

/// HeadsUp's sensor input: discovers the IIO devices, streams each
/// buffered one on its own thread and the polled ones on one shared timer
/// thread (a device whose reads wait for a fresh sample on a timer thread
/// of its own, so it never holds up the others), and aligns them onto one
/// 50 Hz grid in the model's units, axes and sign convention.
public final class IIOSensorReader {
    public struct Options: Sendable {
        public var uri: String
        public var discovery: SensorDiscovery.Options
        public var convention: AxisConvention
        public var resampling: ResamplingConfiguration
        /// Where the buffers HeadsUp turns on are recorded; nil: nowhere
        /// (a buffer left on by a crash is then taken for someone else's).
        public var ownership: BufferOwnershipStore?

        public init(
            uri: String = "local:", discovery: SensorDiscovery.Options = .init(), convention: AxisConvention = .coreMotion,
            resampling: ResamplingConfiguration = .init(), ownership: BufferOwnershipStore? = nil
        ) {
            self.uri = uri
            self.discovery = discovery
            self.convention = convention
            self.resampling = resampling
            self.ownership = ownership
        }
    }

    /// Running totals, for summaries and the live status screen.
    public struct Counters: Sendable, Equatable {
        public var readings = 0
        public var samples = 0
        /// Samples the kernel timestamps show were lost before reaching us.
        public var droppedByDevice = 0
        /// Grid points dropped because one sensor lacked them.
        public var droppedByAlignment = 0
        public var deviceLosses = 0
        /// Times a device turned busy (another program held it).
        public var busyPeriods = 0
    }

    /// How a device is doing now, for `status`.
    public enum DeviceState: Sendable, Equatable, CustomStringConvertible {
        case streaming
        case busy(String)
        case lost(String)

        public var description: String {
            switch self {
            case .streaming: "streaming"
            case .busy(let why): "busy: \(why)"
            case .lost(let why): "lost: \(why)"
            }
        }
    }

    /// Each device's state, by device name.
    public private(set) var deviceStates: [String: DeviceState] = [:]

    public let sources: [SensorSource]
    private let streamers: [DeviceStreamer]
    /// The polled devices' timer threads: one for every device that reads
    /// at once, one more for each whose reads wait (``OneShotReads``).
    private let polling: [PollingStreamer]
    private let queue = SensorEventQueue()
    private var aligner: SensorAligner
    private let logger: Logger
    public private(set) var counters = Counters()
    /// The latest reading per sensor, for display.
    public private(set) var latest: [SensorKind: SIMD3<Double>] = [:]

    public init(options: Options, logger: Logger) throws {
        let context = try IIOContext(uri: options.uri)
        sources = try SensorDiscovery.sources(in: context, options: options.discovery)
        let queue = self.queue
        streamers = sources.filter { $0.mode == .buffered }.map {
            DeviceStreamer(uri: options.uri, source: $0, convention: options.convention, queue: queue, ownership: options.ownership)
        }
        let polled = sources.filter { $0.mode == .polled }.map {
            PolledDevice(uri: options.uri, source: $0, convention: options.convention, ownership: options.ownership)
        }
        let prompt = polled.filter { !$0.source.readsWaitForSample }
        polling =
            (prompt.isEmpty ? [] : [PollingStreamer(devices: prompt, queue: queue)])
            + polled.filter(\.source.readsWaitForSample).map { PollingStreamer(devices: [$0], queue: queue) }
        deviceStates = Dictionary(uniqueKeysWithValues: sources.map { ($0.deviceName, .streaming) })
        aligner = SensorAligner(kinds: sources.flatMap(\.kinds).sorted { $0.rawValue < $1.rawValue }, configuration: options.resampling)
        self.logger = logger
        if !sources.flatMap(\.kinds).contains(.magnetometer) {
            logger.warning("\(SensorSource.noMagnetometerNote)")
        }
    }

    public func start() {
        for streamer in streamers { streamer.start() }
        for streamer in polling { streamer.start() }
    }

    /// Stops the device threads (waits up to about a refill timeout).
    public func stop() {
        for streamer in streamers { streamer.stop() }
        for streamer in polling { streamer.stop() }
        for _ in 0..<300 where streamers.contains(where: { !$0.isFinished }) || polling.contains(where: { !$0.isFinished }) {
            usleep(10_000)
        }
    }

    /// Aligned 50 Hz samples that became ready, waiting up to `timeout` seconds.
    /// Readable when readings are queued: for a caller that waits on
    /// several inputs at once, then polls with no timeout.
    public var readinessDescriptor: Int32? { queue.readiness.descriptor }

    public func poll(timeout: Double) -> [ResampledEvent] {
        var output: [ResampledEvent] = []
        for event in queue.take(timeout: timeout) {
            switch event {
            case .reading(let kind, let time, let values):
                counters.readings += 1
                latest[kind] = values
                aligner.push(kind, time: time, values: values) { output.append($0) }
            case .lost(let device, let reason):
                counters.deviceLosses += 1
                deviceStates[device] = .lost(reason)
                logger.warning("sensor \(device) lost: \(reason); retrying")
            case .busy(let device, let reason):
                counters.busyPeriods += 1
                deviceStates[device] = .busy(reason)
                logger.warning("sensor \(device) busy: \(reason). No motion is scored until it is free; retrying")
            case .reclaimed(let device, let reason):
                logger.notice("sensor \(device): turned off a buffer \(reason), to use it again")
            case .unrecorded(let device, let reason):
                logger.warning(
                    "sensor \(device): cannot record that HeadsUp turned its buffer on (\(reason)); after a crash it would stay on until reboot")
            case .returned(let device):
                deviceStates[device] = .streaming
                logger.notice("sensor \(device) is back")
            case .dropped(let device, let count):
                counters.droppedByDevice += count
                logger.warning("sensor \(device): \(count) samples missing from the kernel stream (overrun?)")
            }
        }
        counters.samples = aligner.emittedCount
        counters.droppedByAlignment = aligner.droppedCount
        return output
    }
}
