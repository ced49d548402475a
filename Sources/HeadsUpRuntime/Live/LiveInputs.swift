import HeadsUpBeacons
import HeadsUpBlueZ
import HeadsUpCrossings
import HeadsUpDBus
import HeadsUpData
import HeadsUpLocation
import HeadsUpPipeline
import HeadsUpScreen
import HeadsUpSensors

/// Where live motion comes from: the IIO sensors, or (in tests) anything
/// that hands out 50 Hz samples.
public protocol MotionSource: AnyObject {
    func start()
    /// The 50 Hz samples that became ready, waiting up to `timeout` seconds.
    func poll(timeout: Double) -> [ResampledEvent]
    /// The latest reading per sensor, for the status screen.
    var latest: [SensorKind: SIMD3<Double>] { get }
    /// Readable when samples are ready, so the live loop can block on all
    /// its inputs at once; nil: the loop waits in `poll(timeout:)` instead.
    var readinessDescriptor: Int32? { get }
    /// Counters for the summary line.
    var summary: String { get }
    /// How each device is read and why, and how it is doing, for `status`.
    var readPaths: [String] { get }
    func stop()
}

/// Where beacon sightings come from: BlueZ, or (in tests) a script.
public protocol BeaconSource: AnyObject {
    func start() throws
    /// The sightings that arrived, waiting up to `timeout` seconds.
    func poll(timeout: Double) throws -> [BeaconSighting]
    func stop()
    /// Counters for the summary line.
    var summary: String { get }
    /// Readable when sightings may be waiting; nil: polled each pass.
    var readinessDescriptor: Int32? { get }
}

/// Where positions come from: GeoClue2, gpsd, or (with --simulate and in
/// tests) a recorded track.
public protocol LocationSource: AnyObject {
    func start()
    /// The fixes that arrived since the last poll, stamped on the pipeline's clock; never waits.
    func poll() -> [LocationFix]
    /// What the source is doing, in words the user can act on ("Location
    /// off", "no fix yet", …); the session logs each change once.
    var status: String { get }
    /// Readable when fixes may be waiting; the loop wakes for them.
    var readinessDescriptors: [Int32] { get }
    /// Counters for the summary line.
    var summary: String { get }
    func stop()
}

extension LocationSource {
    public var readinessDescriptors: [Int32] { [] }
}

/// Whether the phone is in use: the desktop's screen and lock services
/// (``ScreenMonitor``), or (in tests) a script.
public protocol ScreenSource: AnyObject {
    /// Starts following the sources; returns what could not be reached, for the log.
    func start() -> [String]
    /// The combined state now, after taking what arrived.
    func poll() -> ScreenState
    /// Each source's answer (nil: it does not answer), for `headsup status`.
    var sourceAnswers: [(source: String, state: ScreenState?)] { get }
    /// Readable when a source may have changed; the loop wakes for them.
    var readinessDescriptors: [Int32] { get }
    func stop()
}

extension ScreenMonitor: ScreenSource {
    public var sourceAnswers: [(source: String, state: ScreenState?)] { answers.map { ($0.source.label, $0.state) } }
}

extension MotionSource {
    public var readinessDescriptor: Int32? { nil }
    public var readPaths: [String] { [] }
}

extension BeaconSource {
    public var readinessDescriptor: Int32? { nil }
}

/// The service manager: systemd's sd_notify, or nothing.
public protocol ServiceNotifier: Sendable {
    /// How often the watchdog wants a ping, when it is enabled.
    var watchdogInterval: Double? { get }
    func ready()
    func watchdog()
    func stopping()
}

extension IIOSensorReader: MotionSource {
    public var summary: String {
        "samples \(counters.samples), lost by devices \(counters.droppedByDevice), dropped by alignment \(counters.droppedByAlignment)"
            + (counters.busyPeriods > 0 ? ", busy \(counters.busyPeriods) times" : "")
    }

    public var readPaths: [String] {
        sources.map { source in
            "\(source.deviceName): \(source.mode.rawValue) (\(source.modeReason)); \(deviceStates[source.deviceName] ?? .streaming)"
        }
    }
}

extension BlueZScanner: BeaconSource {
    public var summary: String {
        "\(counters.advertisements) advertisements (\(counters.withoutBeacon) without a beacon frame), "
            + "\(counters.devicesKnown) devices known, \(counters.devicesForgotten) forgotten, "
            + "\(counters.setAside) updates set aside undecoded"
            + (counters.foreignSignals > 0 ? ", \(counters.foreignSignals) signals from other senders dropped" : "") + "; scan: \(scanPath)"
    }
}

extension SystemdNotifier: ServiceNotifier {}

extension GPSDClient: LocationSource {
    public var status: String { state.description }
    public var summary: String { "gpsd \(counters.fixes) fixes in \(counters.reports) reports, \(counters.connections) connections" }
}

extension GeoClueClient: LocationSource {
    public var status: String { state.description }
    public var summary: String { "GeoClue2 \(counters.updates) updates, \(counters.unreadable) unreadable, \(counters.starts) starts" }
}
