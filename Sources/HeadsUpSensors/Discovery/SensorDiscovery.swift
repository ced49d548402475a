import Foundation
import HeadsUpData
import HeadsUpSystem

/// Finds the accelerometer, gyroscope and magnetometer among a context's
/// devices by channel type — one combined IMU (bmi160, inv_mpu6050) or
/// separate devices (st_lsm6dsx accel + gyro, lis3mdl or ak8975 magnetometer)
/// — and sets each device's rate to the nearest available at or above the
/// target (the highest for a polled device whose reads wait for a sample).
public enum SensorDiscovery {
    public struct Options: Sendable {
        /// Explicit device names (or ids) per sensor, overriding discovery.
        public var deviceNames: [SensorKind: String]
        public var targetRate: Double
        /// Write the chosen rate to the device (false for `sensors list`).
        public var configureRate: Bool
        /// `sensors.mode`: buffer, poll, or poll where iio-sensor-proxy may read.
        public var readMode: SensorReadMode
        /// What says iio-sensor-proxy may read a device; nil: nothing does (a remote context).
        public var proxy: SensorProxyProbe?
        /// Times a polled device's reads (``OneShotReads``).
        public var clock: any MonotonicClock

        public init(
            deviceNames: [SensorKind: String] = [:], targetRate: Double = 50, configureRate: Bool = true,
            readMode: SensorReadMode = .standard, proxy: SensorProxyProbe? = nil, clock: any MonotonicClock = SystemMonotonicClock()
        ) {
            self.clock = clock
            self.deviceNames = deviceNames
            self.targetRate = targetRate
            self.configureRate = configureRate
            self.readMode = readMode
            self.proxy = proxy
        }
    }

    public static func sources(in context: IIOContext, options: Options = .init()) throws -> [SensorSource] {
        let devices = context.devices.filter { !$0.isTrigger }
        var assigned: [SensorKind: IIODevice] = [:]
        for kind in SensorKind.allCases {
            if let name = options.deviceNames[kind] {
                guard let device = context.device(named: name) else {
                    throw SensorDiscoveryError(kinds: [kind], devices: devices.map(\.label))
                }
                assigned[kind] = device
            } else if let device = devices.first(where: { device in device.channels.contains { $0.kind == kind && !$0.isOutput && $0.axis != nil } })
            {
                assigned[kind] = device
            }
        }
        let missing = SensorKind.allCases.filter { assigned[$0] == nil }
        guard missing.isEmpty || missing == [.magnetometer] else { throw SensorDiscoveryError(kinds: missing, devices: devices.map(\.label)) }
        var sources: [SensorSource] = []
        for device in uniqueDevices(assigned) {
            let kinds = SensorKind.allCases.filter { assigned[$0]?.id == device.id }
            sources.append(try source(for: device, kinds: kinds, context: context, options: options))
        }
        return sources
    }

    private static func uniqueDevices(_ assigned: [SensorKind: IIODevice]) -> [IIODevice] {
        var seen: Set<String> = []
        return SensorKind.allCases.compactMap { assigned[$0] }.filter { seen.insert($0.id).inserted }
    }

    static func source(for device: IIODevice, kinds: [SensorKind], context: IIOContext, options: Options) throws -> SensorSource {
        let channels = device.channels.filter { !$0.isOutput }
        var byKind: [SensorKind: [SensorSource.Channel]] = [:]
        var matrices: [SensorKind: MountMatrix] = [:]
        var matrixSources: [SensorKind: String] = [:]
        var allScanElements = true
        for kind in kinds {
            var axes: [SensorSource.Channel] = []
            for axis in [IIOChannel.Axis.x, .y, .z] {
                guard let channel = channels.first(where: { $0.kind == kind && $0.axis == axis }) else {
                    throw SensorDiscoveryError(kinds: [kind], devices: ["\(device.label) lacks the \(kind.iioType) \(axis) channel"])
                }
                allScanElements = allScanElements && channel.isScanElement
                let scale = channel.attributes.contains("scale") ? Double(try channel.read("scale")) ?? 1 : 1
                let offset = channel.attributes.contains("offset") ? Double(try channel.read("offset")) ?? 0 : 0
                axes.append(SensorSource.Channel(id: channel.id, scale: scale, offset: offset))
            }
            byKind[kind] = axes
            let (matrix, source) = mountMatrix(for: kind, device: device, channels: channels)
            matrices[kind] = matrix
            matrixSources[kind] = source
        }
        let timestamp = channels.first { $0.isTimestamp && $0.isScanElement }
        let path = ReadPath.choose(
            mode: options.readMode, buffer: bufferAbility(device, scanElements: allScanElements && timestamp != nil, context: context),
            proxy: options.proxy?.evidence(deviceID: device.id) ?? .none)
        let mode = path.mode
        var source = SensorSource(
            deviceName: device.name, deviceID: device.id, channels: byKind, mountMatrices: matrices,
            mountMatrixSources: matrixSources, availableRates: nil, requestedRate: nil, rate: nil, mode: mode,
            timestampChannel: mode == .buffered ? timestamp?.id : nil, trigger: device.trigger?.name,
            timestampClock: device.attributes.contains("current_timestamp_clock")
                ? (try? device.read("current_timestamp_clock")) ?? "realtime" : "realtime")
        source.modeReason = path.reason
        try configureRate(&source, device: device, kind: kinds[0], channels: channels, options: options)
        return source
    }

    /// Whether the device's buffer can stream: scan elements with a
    /// timestamp, and a trigger set or one of its own to set (the streamer
    /// sets a trigger named after the device) or none needed.
    static func bufferAbility(_ device: IIODevice, scanElements: Bool, context: IIOContext) -> BufferAbility {
        guard scanElements else { return .none }
        guard device.lacksItsTrigger else { return .usable }
        let ownTrigger = context.devices.contains { $0.isTrigger && $0.name.hasPrefix(device.name) }
        return ownTrigger ? .usable : .needsTrigger
    }

    /// The mount matrix from whichever attribute the driver has:
    /// `in_<type>_mount_matrix` (a channel attribute), `mount_matrix` or
    /// `in_mount_matrix` (device attributes), or libiio 0.24's channel
    /// "mount" with attribute "matrix". Identity when there is none.
    static func mountMatrix(for kind: SensorKind, device: IIODevice, channels: [IIOChannel]) -> (MountMatrix, String) {
        if let channel = channels.first(where: { $0.kind == kind && $0.attributes.contains("mount_matrix") }),
            let text = try? channel.read("mount_matrix"), let matrix = MountMatrix(parsing: text)
        {
            return (matrix, "in_\(kind.iioType)_mount_matrix")
        }
        for name in ["mount_matrix", "in_mount_matrix"] where device.attributes.contains(name) {
            if let text = try? device.read(name), let matrix = MountMatrix(parsing: text) { return (matrix, name) }
        }
        if let mount = channels.first(where: { $0.id == "mount" && $0.attributes.contains("matrix") }),
            let text = try? mount.read("matrix"), let matrix = MountMatrix(parsing: text)
        {
            return (matrix, "in_mount_matrix")
        }
        return (.identity, "none (identity)")
    }

    /// Writes a rate where the driver keeps it: on the device
    /// (`sampling_frequency`) or shared per channel type (`in_accel_sampling_frequency`).
    static func writeRate(_ rate: Double, device: IIODevice, kind: SensorKind) throws(IIOError) {
        let text = String(format: "%g", rate)
        if let channel = device.channels.first(where: { $0.kind == kind && !$0.isOutput && $0.attributes.contains("sampling_frequency") }) {
            try channel.write("sampling_frequency", text)
        } else if device.attributes.contains("sampling_frequency") {
            try device.write("sampling_frequency", text)
        }
    }

    /// Drivers refuse rate changes while someone else's buffer is on (EBUSY):
    /// not fatal, as the streamer writes the rate again each time it (re)connects.
    static func writeRateUnlessBusy(_ rate: Double, device: IIODevice, kind: SensorKind) throws(IIOError) {
        do {
            try writeRate(rate, device: device, kind: kind)
        } catch {
            if !error.meansBusy { throw error }
        }
    }

    /// The highest rate a `sampling_frequency` is taken to say, in Hz: far
    /// above any motion sensor's, and low enough that the buffer and timeout
    /// arithmetic stays finite.
    public static let highestRate = 100_000.0
    /// The lowest: a tenth of a hertz, far below any motion sensor's.
    public static let lowestRate = 0.1

    /// A `sampling_frequency` attribute's rate through `CheckedNumber`: a
    /// driver's 0, negative, NaN, infinite or absurd rate is no rate (nil: unknown,
    /// and the reader assumes 50 Hz) rather than a division that traps.
    public static func rate(fromAttribute text: String?) -> Double? {
        guard let text else { return nil }
        return try? CheckedNumber.double(text, in: lowestRate...highestRate, what: "sampling_frequency")
    }

    /// Chooses the device's rate: the lowest available at or above the
    /// target, or for a polled device whose reads wait for a fresh sample
    /// (``OneShotReads``) its highest. Writes it when `configureRate`; rate
    /// attributes live on the device (`sampling_frequency`) or are shared per
    /// channel type (`in_accel_sampling_frequency`).
    static func configureRate(
        _ source: inout SensorSource, device: IIODevice, kind: SensorKind, channels: [IIOChannel], options: Options
    ) throws {
        let channel = channels.first { $0.kind == kind && $0.attributes.contains("sampling_frequency") }
        func read(_ name: String) -> String? {
            if let channel, channel.attributes.contains(name) { return try? channel.read(name) }
            return device.attributes.contains(name) ? try? device.read(name) : nil
        }
        func choose(_ rate: Double) throws {
            source.requestedRate = rate
            if options.configureRate { try writeRateUnlessBusy(rate, device: device, kind: kind) }
            source.rate = SensorDiscovery.rate(fromAttribute: read("sampling_frequency"))
        }
        source.availableRates = read("sampling_frequency_available")
        let available = source.availableRates.flatMap(AvailableRates.init(parsing:))
        source.rate = SensorDiscovery.rate(fromAttribute: read("sampling_frequency"))
        if let available { try choose(available.choose(atLeast: options.targetRate)) }
        guard source.mode == .polled, let probe = channels.first(where: { $0.kind == kind && $0.axis != nil }) else { return }
        source.rawReadSeconds = timeRawRead(probe, clock: options.clock)
        guard let rate = source.rate, let seconds = source.rawReadSeconds, OneShotReads.waitsForSample(readSeconds: seconds, rate: rate)
        else { return }
        if OneShotReads.needsConfirmation(readSeconds: seconds) {
            guard let again = timeRawRead(probe, clock: options.clock), OneShotReads.waitsForSample(readSeconds: again, rate: rate) else { return }
        }
        source.readsWaitForSample = true
        guard let available else { return }
        try choose(OneShotReads.rate(from: available))
        if options.configureRate { source.rawReadSeconds = timeRawRead(probe, clock: options.clock) }
    }

    /// Seconds one `_raw` read of `channel` takes; nil when it fails (busy, gone).
    static func timeRawRead(_ channel: IIOChannel, clock: any MonotonicClock) -> Double? {
        let start = clock.now()
        guard (try? channel.read("raw")) != nil else { return nil }
        return clock.now() - start
    }
}

public struct SensorDiscoveryError: Error, CustomStringConvertible {
    public var kinds: [SensorKind]
    public var devices: [String]

    public init(kinds: [SensorKind], devices: [String]) {
        self.kinds = kinds
        self.devices = devices
    }

    public var description: String {
        "no IIO device provides \(kinds.map(\.rawValue).joined(separator: ", ")) (devices: "
            + (devices.isEmpty ? "none" : devices.joined(separator: ", "))
            + "). " + (hint ?? "Is the sensor driver loaded? Name devices explicitly with --accel/--gyro/--magn.")
    }

    /// What to do on a board recognised from the devices it does show.
    public var hint: String? {
        // The Sense HAT's own overlay (rpi-sense-overlay) names its LSM9DS1 accelerometer
        // "st,lsm9ds1-accel", which no mainline driver takes: only the magnetometer appears.
        if kinds.contains(.accelerometer), devices.contains(where: { $0.contains("lsm9ds1_magn") }) {
            return "This looks like a Raspberry Pi Sense HAT with its own overlay, whose accelerometer no mainline driver takes: "
                + "load an overlay that declares the LSM9DS1 at 0x6a as \"st,lsm9ds1-imu\" (docs/phones-and-boards.md)."
        }
        return nil
    }
}
