import ArgumentParser
import Foundation
import HeadsUpData
import HeadsUpRuntime
import HeadsUpSensors
import HeadsUpSystem

/// `headsup sensors read`: live 50 Hz samples in the model's units.
struct SensorsReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Print converted 50 Hz samples (g, rad/s, µT; model axes and sign) as they arrive.")

    @OptionGroup var sensors: SensorOptions

    @Option(help: "Stop after this many seconds (default: until SIGINT/SIGTERM).")
    var seconds: Double?

    @Flag(help: "One JSON object per sample.")
    var json = false

    func run() throws {
        let reader = try sensors.makeReader()
        let signals = TerminationSignals()
        let clock = SystemMonotonicClock()
        let start = clock.now()
        reader.start()
        defer { reader.stop() }
        while !signals.requested {
            if let seconds, clock.now() - start >= seconds { break }
            var text = ""
            for event in reader.poll(timeout: 0.1) {
                guard case .sample(let s, _) = event else { continue }
                if json {
                    text +=
                        JSONLine.encode([
                            "time": s.time, "acc": [s.acceleration.x, s.acceleration.y, s.acceleration.z],
                            "gyro": [s.rotationRate.x, s.rotationRate.y, s.rotationRate.z],
                            "mag": [s.magneticField.x, s.magneticField.y, s.magneticField.z],
                        ]) + "\n"
                } else {
                    text += String(
                        format: "%.3f  acc %7.3f %7.3f %7.3f g  gyro %7.3f %7.3f %7.3f rad/s  mag %7.1f %7.1f %7.1f µT\n", s.time,
                        s.acceleration.x, s.acceleration.y, s.acceleration.z, s.rotationRate.x, s.rotationRate.y, s.rotationRate.z,
                        s.magneticField.x, s.magneticField.y, s.magneticField.z)
                }
            }
            if !text.isEmpty { FileHandle.standardOutput.write(Data(text.utf8)) }
        }
        let c = reader.counters
        printError(
            "sensors: \(c.samples) samples at 50 Hz from \(c.readings) readings; \(c.droppedByDevice) lost by devices, \(c.droppedByAlignment) grid points dropped, \(c.deviceLosses) device losses"
        )
    }
}
