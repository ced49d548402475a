import Glibc
import HeadsUpData

/// A source's device found in a fresh IIO context, its rate re-applied and
/// its x, y, z channels per sensor resolved: what both read modes start
/// from, on every (re)connection.
struct LocatedDevice {
    let context: IIOContext
    let device: IIODevice
    /// The device's input channels.
    let channels: [IIOChannel]
    /// Per sensor: its three channels and their calibration, in x, y, z order.
    let resolved: [(kind: SensorKind, axes: [IIOChannel], plan: [SensorSource.Channel])]

    init(source: SensorSource, uri: String) throws {
        context = try IIOContext(uri: uri)
        guard let device = context.device(named: source.deviceID) ?? context.device(named: source.deviceName),
            device.name == source.deviceName
        else {
            throw IIOError(operation: "finding the device", target: source.deviceName, errno: ENODEV)
        }
        self.device = device
        // Re-apply the rate (a replugged device starts at its default).
        if let rate = source.requestedRate, let kind = source.kinds.first {
            try? SensorDiscovery.writeRate(rate, device: device, kind: kind)
        }
        let channels = device.channels.filter { !$0.isOutput }
        self.channels = channels
        var resolved: [(SensorKind, [IIOChannel], [SensorSource.Channel])] = []
        for kind in source.kinds {
            let plan = source.channels[kind]!
            let found = plan.compactMap { wanted in channels.first { $0.id == wanted.id } }
            guard found.count == 3 else { throw IIOError(operation: "finding \(kind.iioType) channels", target: device.label, errno: ENOENT) }
            resolved.append((kind, found, plan))
        }
        self.resolved = resolved
    }
}

/// Turns one sensor's raw x, y, z into the model's units, frame and axis
/// convention: offset and scale, mount matrix, unit factor, sign convention.
struct ReadingConverter: Sendable {
    let source: SensorSource
    let convention: AxisConvention

    func convert(_ kind: SensorKind, raw: SIMD3<Double>, plan: [SensorSource.Channel]) -> SIMD3<Double> {
        var v = SIMD3<Double>()
        for axis in 0..<3 { v[axis] = (raw[axis] + plan[axis].offset) * plan[axis].scale }
        v = (source.mountMatrices[kind] ?? .identity).apply(v) * kind.factorFromIIO
        return kind == .accelerometer ? convention.fromIIO(acceleration: v) : v
    }
}
