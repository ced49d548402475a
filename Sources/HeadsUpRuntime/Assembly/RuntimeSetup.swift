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
    public var scorer: ModelScorer { ModelScorer(model: model, layout: layout) }

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
        // Without a card: a flat 450-vector is the seed's channel-major layout, [50, 9] time-major.
        layout = card.flatMap { WindowLayout(rawValue: $0.layout) } ?? (model.inputShape == [450] ? .channelMajor : .timeMajor)
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
        if let webhook = notifications.webhook {
            guard let url = URL(string: webhook), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw .settings(resolved.error("notifications.webhook", "'\(Redaction.redacted(webhook))' is not an http(s) URL"))
            }
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

    /// The MQTT sink's configuration, or nil when no broker is set.
    func mqttConfiguration() throws(RuntimeSetupError) -> MQTTSink.Configuration? {
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

    public var description: String {
        switch self {
        case .bundledData(let error): error.description
        case .settings(let error): error.description
        case .model(let error): error.description
        case .modelCard(let error): error.description
        }
    }
}
