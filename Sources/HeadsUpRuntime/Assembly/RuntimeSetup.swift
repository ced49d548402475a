import Foundation
import HeadsUpBeacons
import HeadsUpData
import HeadsUpKernels
import HeadsUpModel
import HeadsUpNotify
import HeadsUpPipeline
import Logging

/// Settings turned into ready parts: the model and its card (whose values
/// join the settings just above the defaults), the pipeline configuration
/// and the notification sinks. Every command that scores builds one.
public struct RuntimeSetup: Sendable {
    public let resolved: ResolvedSettings
    public let model: KerasModel
    public let card: ModelCard?
    /// The window layout the model was trained on.
    public let layout: WindowLayout

    public var settings: Settings { resolved.settings }
    public var scorer: ModelScorer { ModelScorer(model: model, layout: layout, zeroed: zeroFed) }
    /// The sensors the card says to feed as 0 (`input.feed`); none without a card.
    public var zeroFed: Set<AbsentSensor> { Set((card?.zeroFedSensors ?? []).compactMap(AbsentSensor.init(rawValue:))) }

    /// Resolves the layers once to find the model, loads it (through
    /// `modelCheck`'s child process, when given) and its card,
    /// then resolves again with the card in place.
    /// The default model (no `model` setting) is the bundled one, found through `bundled`.
    /// The model runs on `kernels` (``KernelTable/forThisMachine(environment:)``).
    package init(
        layers: LayeredSettings, modelCheck: IsolatedModelCheck? = nil, bundled: BundledData = .forThisProcess(), kernels: KernelTable = .best
    ) throws(RuntimeSetupError) {
        var layers = layers
        var withoutCard: ResolvedSettings
        do { withoutCard = try layers.resolved() } catch { throw .settings(error) }
        if withoutCard.source(of: "model") == ResolvedSettings.defaultSource {
            let path: String
            do { path = try bundled.locate(withoutCard.settings.model.path) } catch { throw .bundledData(error) }
            do {
                try layers.set("model", .string(path), source: ResolvedSettings.defaultSource)
                withoutCard = try layers.resolved()
            } catch {
                throw .settings(error)
            }
        }
        let modelSettings = withoutCard.settings.model
        do throws(ModelLoadError) {
            if let modelCheck {
                model = try modelCheck.load(path: modelSettings.path, kernels: kernels)
            } else {
                model = try KerasModelLoader.load(path: modelSettings.path, kernels: kernels)
            }
        } catch {
            throw .model(error)
        }
        let cardPath = modelSettings.card ?? ModelCard.siblingPath(of: modelSettings.path)
        if FileManager.default.fileExists(atPath: cardPath) {
            do {
                let card = try ModelCard.load(path: cardPath)
                try card.check(against: model)
                try card.checkDigest(ofModelAt: modelSettings.path)
                self.card = card
            } catch {
                throw .modelCard(error)
            }
        } else if modelSettings.card != nil {
            throw .settings(withoutCard.error("model_card", "\(cardPath) does not exist"))
        } else {
            card = nil
        }
        do { resolved = try layers.resolved(card: card) } catch { throw .settings(error) }
        layout = try Self.windowLayout(of: model, card: card, path: modelSettings.path)
        try Self.checkScores(of: model, path: modelSettings.path)
    }

    /// A model whose score is not a number (a negative variance in a
    /// normalization layer, a weight near the float range) would read as
    /// "never distracted" and never warn: it is refused at start, from two
    /// probe windows (all zeros, all ones).
    package static func checkScores(of model: KerasModel, path: String) throws(RuntimeSetupError) {
        let count = model.inputShape.reduce(1, *)
        for value: Float in [0, 1] {
            let output = model.predict([Float](repeating: value, count: count))
            if let bad = output.first(where: { !$0.isFinite }) {
                throw .unsuitableModel(
                    path: path,
                    reason: "the model scores a window of \(Int(value))s as \(bad): a weight in it is damaged or out of range "
                        + "(a negative variance, a value near the float limit). Copy the model again, or re-train it")
            }
        }
    }

    /// How the model takes a window, checked before the first window reaches
    /// it: its card's layout, or without a card a flat 450-vector (the seed's
    /// channel-major input) or [50, 9] (time-major), with any axes of size 1. Any other input, or
    /// other than one score (a sigmoid) or two (a softmax), cannot score
    /// HeadsUp's windows.
    package static func windowLayout(of model: KerasModel, card: ModelCard?, path: String) throws(RuntimeSetupError) -> WindowLayout {
        let length = WindowingConfiguration().length
        let values = length * SensorChannel.count
        let takes = "the model takes input \(model.inputShape) (\(model.inputShape.reduce(1, *)) values)"
        guard model.inputShape.reduce(1, *) == values else {
            throw .unsuitableModel(
                path: path,
                reason: "\(takes); HeadsUp scores windows of \(length) samples × \(SensorChannel.count) channels (\(values) values). "
                    + "Use a model trained on HeadsUp windows (tools/training)")
        }
        guard model.outputCount == 1 || model.outputCount == 2 else {
            throw .unsuitableModel(
                path: path, reason: "the model gives \(model.outputCount) outputs; HeadsUp needs 1 (a sigmoid) or 2 (a two-class softmax)")
        }
        if let card, let layout = WindowLayout(rawValue: card.layout) { return layout }
        // Axes of size 1 ([1, 50, 9], [50, 9, 1]) do not change the order of the values.
        switch model.inputShape.filter({ $0 != 1 }) {
        case [values]: return .channelMajor
        case [length, SensorChannel.count]: return .timeMajor
        default:
            throw .unsuitableModel(
                path: path,
                reason: "\(takes), which could be either window layout; put a model card beside it (\(ModelCard.siblingPath(of: path))) "
                    + "naming its layout, channel-major or time-major")
        }
    }

    public func pipelineConfiguration() throws(RuntimeSetupError) -> HeadsUpPipeline.Configuration {
        do { return try resolved.pipelineConfiguration() } catch { throw .settings(error) }
    }

    /// The configured notification sinks. The MQTT sink starts connecting
    /// here, in the background. With an `inbox` (a live session's), the
    /// desktop notification offers Snooze and Dismiss and posts the presses there.
    public func makeSinks(logger: Logger, inbox: ControlInbox? = nil) throws(RuntimeSetupError) -> [any NotificationSink] {
        let notifications = settings.notifications
        var sinks: [any NotificationSink] = []
        if notifications.desktop {
            let onAction = inbox.map { inbox in
                { @Sendable (action: DesktopNotificationSink.UserAction) in
                    inbox.post(action == .snooze ? .snooze(seconds: DesktopNotificationSink.snoozeLength) : .acknowledge)
                }
            }
            sinks.append(DesktopNotificationSink(logger: logger, onAction: onAction))
        }
        if notifications.feedback {
            var feedback = FeedbackSink.Configuration()
            feedback.event = notifications.feedbackEvent
            feedback.timeout = notifications.feedbackTimeout
            sinks.append(FeedbackSink(configuration: feedback, logger: logger))
        }
        if !notifications.command.isEmpty { sinks.append(CommandSink(arguments: notifications.command, timeout: notifications.commandTimeout)) }
        if let url = try Self.webhookURL(resolved) {
            do { sinks.append(try WebhookSink(url: url, timeout: notifications.webhookTimeout)) } catch {
                throw .settings(resolved.error("notifications.webhook", error.message))
            }
        }
        if let json = notifications.json {
            do { sinks.append(try JSONLinesSink(path: json)) } catch { throw .settings(resolved.error("notifications.json", "\(error)")) }
        }
        if let mqtt = try mqttConfiguration() {
            do { sinks.append(try MQTTSink(configuration: mqtt, logger: logger)) } catch {
                throw .settings(resolved.error("notifications.mqtt.url", "\(error)"))
            }
        }
        return sinks
    }

    /// Checks what the sinks would refuse when made (the webhook's and the
    /// broker's URLs), without making them: `config show` is then the
    /// validator a user expects, not only `live`.
    public static func checkSinkSettings(_ resolved: ResolvedSettings) throws(RuntimeSetupError) {
        _ = try webhookURL(resolved)
        _ = try mqttConfiguration(resolved)
    }

    /// The webhook's URL, or nil when none is set.
    static func webhookURL(_ resolved: ResolvedSettings) throws(RuntimeSetupError) -> URL? {
        guard let webhook = resolved.settings.notifications.webhook else { return nil }
        guard let url = URL(string: webhook), url.scheme == "http" || url.scheme == "https", url.host?.isEmpty == false else {
            throw .settings(resolved.error("notifications.webhook", "'\(Redaction.redacted(webhook))' is not an http(s) URL"))
        }
        return url
    }

    /// The MQTT sink's configuration, or nil when no broker is set.
    func mqttConfiguration() throws(RuntimeSetupError) -> MQTTSink.Configuration? {
        try Self.mqttConfiguration(resolved)
    }

    static func mqttConfiguration(_ resolved: ResolvedSettings) throws(RuntimeSetupError) -> MQTTSink.Configuration? {
        let settings = resolved.settings
        let mqtt = settings.notifications.mqtt
        guard let url = mqtt.url else { return nil }
        var configuration: MQTTSink.Configuration
        do { configuration = MQTTSink.Configuration(broker: try MQTTBroker(url: url)) } catch {
            throw .settings(resolved.error("notifications.mqtt.url", "\(error)"))
        }
        configuration.username = mqtt.username
        configuration.password = mqtt.password
        configuration.clientID = mqtt.clientID
        configuration.topicPrefix = mqtt.topicPrefix
        configuration.discoveryPrefix = mqtt.discoveryPrefix
        configuration.caFile = mqtt.caFile
        configuration.scoreInterval = mqtt.scoreInterval
        configuration.regions = settings.beacons.regions.compactMap { try? BeaconRegion.parse($0).name }
        configuration.version = HeadsUpVersion.current
        return configuration
    }
}

/// Why the runtime could not be set up: a setting, the model file or its card.
public enum RuntimeSetupError: Error, Sendable, CustomStringConvertible {
    case settings(SettingsError)
    case model(ModelLoadError)
    case modelCard(ModelCardError)
    case bundledData(BundledDataError)
    /// A model that loads but cannot score HeadsUp's windows (its input or output shape).
    case unsuitableModel(path: String, reason: String)

    public var description: String {
        switch self {
        case .unsuitableModel(let path, let reason): "\(path): \(reason)"
        case .bundledData(let error): error.description
        case .settings(let error): error.description
        case .model(let error): error.description
        case .modelCard(let error): error.description
        }
    }
}
