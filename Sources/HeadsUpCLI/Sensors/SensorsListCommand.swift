import ArgumentParser
import Foundation
import HeadsUpSensors

/// `headsup sensors list`: what the IIO context offers and how HeadsUp would use it.
struct SensorsListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Devices, their channels and roles, scale, offset, rates, mount matrix, buffered or polled.")

    @OptionGroup var sensors: SensorOptions

    func run() throws {
        let context = try IIOContext(uri: sensors.uri)
        for device in context.devices {
            print("\(device.id): \(device.name)\(device.isTrigger ? " (trigger)" : "")")
            for channel in device.channels where !channel.isOutput {
                let role = channel.kind.map { "\($0.rawValue) \(channel.axis.map { "\($0)" } ?? "")" } ?? (channel.isTimestamp ? "timestamp" : "-")
                let scan = channel.isScanElement ? "scan index \(channel.scanIndex)" : "no buffer"
                print("  \(channel.id): \(role), \(scan)")
            }
        }
        let sources = try SensorDiscovery.sources(in: context, options: sensors.discovery(configureRate: false))
        print("\nHeadsUp would read:")
        for source in sources {
            let stamps = source.mode == .buffered ? "timestamps \(source.timestampClock)" : "stamped when read"
            print(
                "  \(source.deviceName) (\(source.deviceID)): \(source.kinds.map(\.rawValue).joined(separator: ", ")), \(source.mode.rawValue)"
                    + (source.trigger.map { ", trigger \($0)" } ?? "") + ", \(stamps)")
            print("    read: \(source.mode.rawValue), because \(source.modeReason)")
            print(
                "    rate: now \(Self.hertz(source.rate)), available \(source.availableRates ?? "-"), chosen \(Self.hertz(source.requestedRate))")
            if let seconds = source.rawReadSeconds {
                print(
                    "    one raw read: \(String(format: "%.1f ms", seconds * 1000)) at \(Self.hertz(source.rate))"
                        + (source.readsWaitForSample
                            ? "; the driver waits for a fresh sample on each read, so HeadsUp runs it at its highest rate and stamps each reading at the middle of its read"
                            : ""))
            }
            for kind in source.kinds {
                let channels = source.channels[kind]!.map { "\($0.id) scale \($0.scale) offset \($0.offset)" }.joined(separator: "; ")
                print("    \(kind.rawValue): \(channels)")
                print("      mount matrix [\(source.mountMatrices[kind]!)] from \(source.mountMatrixSources[kind]!)")
            }
        }
        if !sources.flatMap(\.kinds).contains(.magnetometer) { print("  \(SensorSource.noMagnetometerNote)") }
    }

    static func hertz(_ rate: Double?) -> String { rate.map { String(format: "%g Hz", $0) } ?? "-" }
}
