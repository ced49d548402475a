import ArgumentParser
import Foundation
import HeadsUpData
import HeadsUpRuntime
import HeadsUpSensors
import Logging

/// Where the sensors are and how their data is turned into the model's.
struct SensorOptions: ParsableArguments {
    @Option(help: "IIO context: local: (this machine), ip:HOST (a board running iiod), usb:…")
    var uri = "local:"

    @Option(name: .customLong("accel"), help: "Accelerometer device name or id (default: found by channel type).")
    var accelerometer: String?

    @Option(name: .customLong("gyro"), help: "Gyroscope device name or id.")
    var gyroscope: String?

    @Option(name: .customLong("magn"), help: "Magnetometer device name or id.")
    var magnetometer: String?

    @Option(help: "Axis and sign convention of the output: coremotion (the bundled model's training data) or android (as IIO reports).")
    var convention: AxisConvention = .coreMotion

    @Option(help: "How to read the IMU: auto (poll where iio-sensor-proxy may read it, else buffer), buffer or poll.")
    var mode: SensorReadMode = .standard

    var deviceNames: [SensorKind: String] {
        var names: [SensorKind: String] = [:]
        names[.accelerometer] = accelerometer
        names[.gyroscope] = gyroscope
        names[.magnetometer] = magnetometer
        return names
    }

    func readerOptions(configureRate: Bool = true) -> IIOSensorReader.Options {
        IIOSensorReader.Options(
            uri: uri, discovery: discovery(configureRate: configureRate), convention: convention,
            ownership: .standard(environment: ProcessInfo.processInfo.environment))
    }

    func discovery(configureRate: Bool) -> SensorDiscovery.Options {
        .init(deviceNames: deviceNames, configureRate: configureRate, readMode: mode, proxy: SensorProxyLookup.probe(uri: uri))
    }

    func makeReader() throws -> IIOSensorReader {
        try IIOSensorReader(options: readerOptions(), logger: Logger(label: "headsup.sensors"))
    }
}

extension SensorReadMode: ExpressibleByArgument {}
