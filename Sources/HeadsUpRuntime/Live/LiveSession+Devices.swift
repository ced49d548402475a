import Foundation
import HeadsUpBlueZ
import HeadsUpDBus
import HeadsUpLocation
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpSensors
import HeadsUpSystem
import Logging

extension LiveSession {
    /// A session on this machine's devices: the IIO sensors, BlueZ on the
    /// system bus (when regions are configured), the configured sinks and
    /// systemd's notify socket.
    public static func onDevices(setup: RuntimeSetup, logger: Logger) throws(LiveSessionError) -> LiveSession {
        let settings = setup.settings
        let inbox = ControlInbox()
        let (configuration, sinks) = try pipelineAndSinks(setup, logger: logger, inbox: inbox)
        var names: [SensorKind: String] = [:]
        names[.accelerometer] = settings.sensors.accelerometer
        names[.gyroscope] = settings.sensors.gyroscope
        names[.magnetometer] = settings.sensors.magnetometer
        let reader: IIOSensorReader
        do {
            let discovery = SensorDiscovery.Options(
                deviceNames: names, readMode: settings.sensors.mode, proxy: SensorProxyLookup.probe(uri: settings.sensors.uri))
            reader = try IIOSensorReader(
                options: .init(
                    uri: settings.sensors.uri, discovery: discovery, convention: settings.sensors.convention,
                    ownership: .standard(environment: ProcessInfo.processInfo.environment)),
                logger: logger)
            for source in reader.sources {
                logger.notice("sensor \(source.deviceName): \(source.mode.rawValue), because \(source.modeReason)")
            }
        } catch {
            throw .sensors("\(error)")
        }
        var scanner: BlueZScanner?
        if !configuration.regions.isEmpty {
            do {
                scanner = BlueZScanner(
                    connection: try DBusConnection(.system),
                    options: .init(
                        adapter: settings.beacons.adapter, stallTimeout: settings.beacons.stallTimeout,
                        forgetAfter: settings.beacons.exitTimeout, regions: configuration.regions,
                        scanMode: settings.beacons.scan), logger: logger)
            } catch {
                throw .beacons("\(error)")
            }
        }
        let locations = locationSource(
            settings.location, crossings: configuration.crossings != nil, clock: SystemMonotonicClock(), logger: logger)
        let dispatcher = NotificationDispatcher(sinks: sinks, retries: settings.notifications.retries, logger: logger)
        var parts = Parts(
            motion: reader, beacons: scanner, dispatcher: dispatcher, service: SystemdNotifier(), inbox: inbox, locations: locations)
        parts.attachControl(environment: ProcessInfo.processInfo.environment, logger: logger)
        parts.attachScreen(configuration.warning.onlyWhileScreenOn, environment: ProcessInfo.processInfo.environment, logger: logger)
        return LiveSession(scorer: setup.scorer, configuration: configuration, parts: parts, logger: logger)
    }

    /// Positions for the crossings file: GeoClue2, gpsd on localhost, or
    /// (auto) GeoClue2 unless it is unavailable, then gpsd; none without a
    /// crossings file.
    static func locationSource(
        _ settings: LocationSettings, crossings: Bool, clock: any MonotonicClock, logger: Logger
    ) -> (any LocationSource)? {
        guard crossings else { return nil }
        let geoclue = { GeoClueClient(clock: clock, wallClock: SystemWallClock(), logger: logger) }
        let gpsd = {
            var options = GPSDClient.Options()
            options.port = UInt16(clamping: settings.gpsdPort)
            return GPSDClient(options: options, clock: clock, wallClock: SystemWallClock(), logger: logger)
        }
        switch settings.source {
        case .auto: return AutoLocationSource(geoclue: geoclue(), gpsd: gpsd, logger: logger)
        case .geoclue: return geoclue()
        case .gpsd: return gpsd()
        case .none: return nil
        }
    }

    /// The pipeline's configuration and the sinks, as every session needs them.
    static func pipelineAndSinks(_ setup: RuntimeSetup, logger: Logger, inbox: ControlInbox) throws(LiveSessionError) -> (
        HeadsUpPipeline.Configuration, [any NotificationSink]
    ) {
        do { return (try setup.pipelineConfiguration(), try setup.makeSinks(logger: logger, inbox: inbox)) } catch { throw .setup(error) }
    }
}
