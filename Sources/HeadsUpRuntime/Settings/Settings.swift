import HeadsUpBeacons
import HeadsUpBlueZ
import HeadsUpCrossings
import HeadsUpData
import HeadsUpLocation
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpSensors

/// Everything a user can set, typed. A fresh `Settings()` holds the built-in
/// defaults, and those come from the library types that use them
/// (`DistractionConfiguration()`, `WarningConfiguration()`,
/// `RegionMonitorConfiguration()`, …): each default is written once, there.
/// `SettingsSchema` names each field, gives its valid range and its help;
/// `LayeredSettings` fills it from the model card, files and flags.
public struct Settings: Sendable, Equatable {
    public var model = ModelSettings()
    public var sensors = SensorSettings()
    public var windowing = WindowingConfiguration()
    public var distraction = DistractionSettings()
    public var beacons = BeaconSettings()
    public var crossings = CrossingSettings()
    public var location = LocationSettings()
    public var warning = WarningConfiguration()
    /// How readily to warn, around the model card's tuned values.
    public var sensitivity = Sensitivity.normal
    public var notifications = NotificationSettings()

    public init() {}
}

/// Which model to score with.
public struct ModelSettings: Sendable, Equatable {
    /// The Keras model file.
    public var path = "weights/model.h5"
    /// Its model card; `nil` means the `.json` beside the model.
    public var card: String?
}

/// Where the motion comes from.
public struct SensorSettings: Sendable, Equatable {
    /// libiio context URI ("local:", "ip:board.local").
    public var uri = "local:"
    /// IIO device names; `nil` finds them by their channels.
    public var accelerometer: String?
    public var gyroscope: String?
    public var magnetometer: String?
    /// The axis convention the model was trained in (the model card's, usually).
    public var convention = AxisConvention.coreMotion
    /// Buffer, poll, or poll where iio-sensor-proxy may read the device.
    public var mode = SensorReadMode.standard
}

/// How scores become the distracted state. The model card usually sets the
/// enter threshold; an unset exit threshold follows it
/// (`DistractionConfiguration.around`).
public struct DistractionSettings: Sendable, Equatable {
    public var timeConstant = DistractionConfiguration().timeConstant
    public var enterThreshold = DistractionConfiguration().enterThreshold
    public var exitThreshold: Double?
    public var minimumDuration = DistractionConfiguration().minimumDuration

    /// The tracker's configuration.
    public var configuration: DistractionConfiguration {
        var configuration = DistractionConfiguration.around(threshold: enterThreshold)
        if let exitThreshold { configuration.exitThreshold = exitThreshold }
        configuration.timeConstant = timeConstant
        configuration.minimumDuration = minimumDuration
        return configuration
    }
}

/// The crossing regions and how beacons are judged.
public struct BeaconSettings: Sendable, Equatable {
    /// Region specs (`crossing=UUID:1`), parsed by `BeaconRegion.parse`.
    public var regions: [String] = []
    /// Bluetooth adapter (hci0); `nil` takes the first powered one.
    public var adapter: String?
    /// RSSI thresholds: both or neither; with neither, the distances apply.
    public var enterRSSI: Double?
    public var exitRSSI: Double?
    public var enterDistance = RegionEntryRule.standardDistances.enter
    public var exitDistance = RegionEntryRule.standardDistances.exit
    public var dwell = RegionMonitorConfiguration().dwell
    public var exitTimeout = RegionMonitorConfiguration().exitTimeout
    public var filter = RegionMonitorConfiguration().filter
    public var distance = RegionMonitorConfiguration().distance
    /// Seconds without advertisements before discovery is restarted.
    public var stallTimeout = BlueZScanner.Options().stallTimeout
    /// discovery (the default), or monitor: bluetoothd's advertisement
    /// monitor where it offers one (passive scan, only beacons reported;
    /// see `BlueZScanMode` for what it costs), discovery otherwise.
    public var scan = BlueZScanner.Options().scanMode
}

/// The mapped crossings: which file, which kinds, how near is "at" one.
public struct CrossingSettings: Sendable, Equatable {
    /// A crossings file made by `headsup crossings import`; unset: beacons only.
    public var file: String?
    /// The kinds that count as crossings.
    public var kinds = CrossingMonitorConfiguration().kinds
    public var radius = CrossingMonitorConfiguration().radius
    public var exitRadius = CrossingMonitorConfiguration().exitRadius
    public var cooldown = CrossingMonitorConfiguration().cooldown
}

/// Where the phone's position comes from, and which fixes are trusted.
public struct LocationSettings: Sendable, Equatable {
    public var source = LocationSourceKind.auto
    public var accuracyFloor = CrossingMonitorConfiguration().accuracyFloor
    public var maximumAccuracy = CrossingMonitorConfiguration().maximumAccuracy
    public var maximumAge = CrossingMonitorConfiguration().maximumAge
    public var maximumSpeed = CrossingMonitorConfiguration().maximumSpeed
    public var exitTimeout = CrossingMonitorConfiguration().exitTimeout
    /// gpsd's TCP port on localhost.
    public var gpsdPort = Int(GPSDClient.Options().port)
}

/// The location source: GeoClue2 on a phone's session bus, gpsd on a board.
public enum LocationSourceKind: String, Sendable, CaseIterable {
    /// GeoClue2 where it is on the system bus, else gpsd on localhost (``AutoLocationSource``).
    case auto
    case geoclue
    case gpsd
    /// No positions: crossings files are not used.
    case none
}

extension Settings {
    /// The crossing monitor's configuration from `crossings.*` and `location.*`.
    public var crossingMonitor: CrossingMonitorConfiguration {
        CrossingMonitorConfiguration(
            radius: crossings.radius, exitRadius: crossings.exitRadius, accuracyFloor: location.accuracyFloor,
            maximumAccuracy: location.maximumAccuracy, maximumAge: location.maximumAge, maximumSpeed: location.maximumSpeed,
            exitTimeout: location.exitTimeout, cooldown: crossings.cooldown, kinds: crossings.kinds)
    }
}

/// Where warnings go besides the pipeline's own output.
public struct NotificationSettings: Sendable, Equatable {
    /// org.freedesktop.Notifications on the session bus.
    public var desktop = true
    /// A program and its arguments, run per warning (no shell).
    public var command: [String] = []
    public var commandTimeout = CommandSink.defaultTimeout
    /// An http(s) URL each warning is POSTed to as JSON.
    public var webhook: String?
    public var webhookTimeout = WebhookSink.defaultTimeout
    /// Extra attempts for a failing sink.
    public var retries = NotificationDispatcher.defaultRetries
    /// A file (or - for standard output) that gets each warning as a JSON line.
    public var json: String?
    /// feedbackd's vibration and sound (Linux phones); quietly unused where it does not run.
    public var feedback = true
    public var feedbackEvent = FeedbackSink.Configuration().event
    public var feedbackTimeout = FeedbackSink.Configuration().timeout
    /// An MQTT broker that gets the warnings and the job's state (Home Assistant).
    public var mqtt = MQTTSettings()
}

/// The MQTT sink's settings; see `MQTTSink.Configuration` for what each does.
public struct MQTTSettings: Sendable, Equatable {
    /// mqtt://HOST[:PORT] or mqtts://HOST[:PORT]; unset: no MQTT.
    public var url: String?
    public var username: String?
    public var password: String?
    public var clientID: String?
    public var topicPrefix: String?
    public var discoveryPrefix: String? = MQTTSink.Configuration.defaultDiscoveryPrefix
    public var caFile: String?
    public var scoreInterval = MQTTSink.Configuration.defaultScoreInterval
}
