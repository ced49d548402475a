import ArgumentParser
import HeadsUpData
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

    var deviceNames: [SensorKind: String] {
        var names: [SensorKind: String] = [:]
        names[.accelerometer] = accelerometer
        names[.gyroscope] = gyroscope
        names[.magnetometer] = magnetometer
        return names
    }

    func readerOptions(configureRate: Bool = true) -> IIOSensorReader.Options {
        IIOSensorReader.Options(
            uri: uri, discovery: .init(deviceNames: deviceNames, configureRate: configureRate), convention: convention)
    }

    func makeReader() throws -> IIOSensorReader {
        try IIOSensorReader(options: readerOptions(), logger: Logger(label: "headsup.sensors"))
    }
}
