import Foundation

/// A change to a recording that a different phone, or the same phone held
/// differently, would have made: a calibration error (a magnetometer's
/// hard-iron offset or gain, an accelerometer or gyroscope bias), a turn of
/// the phone, or another sampling rate. `headsup evaluate --perturb` reads
/// the sessions through one at a time and reports each beside the clean
/// figures, so a model that depends on one phone's calibration shows it.
///
/// Applied to samples in the model's units and axes (g, rad/s, µT, after
/// the CSV reader's conversion). A sensor that reads exactly (0, 0, 0) is
/// one the recording lacks (the carry set's gyroscope and magnetometer, a
/// device without them): a bias or offset does not make it appear.
public enum SensorPerturbation: Sendable, Hashable, CustomStringConvertible {
    /// Added to the magnetometer (µT per axis): a hard-iron offset.
    case magneticOffset(SIMD3<Double>)
    /// The magnetometer scaled by this factor: a gain (soft-iron) error.
    case magneticGain(Double)
    /// Added to the accelerometer (g per axis).
    case accelerationBias(SIMD3<Double>)
    /// Added to the gyroscope (rad/s per axis).
    case rotationRateBias(SIMD3<Double>)
    /// The phone turned by `degrees` about one of its axes, every sensor
    /// alike: pitch (about x) raises the top edge (a phone held flat,
    /// pitch 90: upright, in portrait), roll (about y) raises the right
    /// edge, yaw turns it about the screen normal, counter-clockwise.
    case rotation(RotationAxis, degrees: Double)
    /// The recording as a device sampling at this rate (Hz) would give it:
    /// linear interpolation at k / rate (``RateConverter``).
    case rate(Double)

    public enum RotationAxis: String, Sendable, CaseIterable {
        case pitch, roll, yaw
    }

    /// The calibration perturbations the shipped model must not move under
    /// (issue 41): magnetometer offset ±600 µT and gain 0.5 and 2,
    /// accelerometer bias ±0.05 g, gyroscope bias ±0.05 rad/s.
    public static let calibrationSuite: [SensorPerturbation] = [
        .magneticOffset(.init(repeating: 600)), .magneticOffset(.init(repeating: -600)), .magneticOffset(.init(-590, 0, 0)),
        .magneticGain(0.5), .magneticGain(2),
        .accelerationBias(.init(repeating: 0.05)), .accelerationBias(.init(repeating: -0.05)),
        .rotationRateBias(.init(repeating: 0.05)), .rotationRateBias(.init(repeating: -0.05)),
    ]

    /// True for the calibration kinds (not a turn or a rate).
    public var isCalibration: Bool {
        switch self {
        case .magneticOffset, .magneticGain, .accelerationBias, .rotationRateBias: true
        case .rotation, .rate: false
        }
    }

    /// As written on the command line: `mag-offset=600`, `rotate=pitch:30`.
    public var description: String {
        func vector(_ v: SIMD3<Double>) -> String {
            v.x == v.y && v.y == v.z ? Self.number(v.x) : "\(Self.number(v.x)):\(Self.number(v.y)):\(Self.number(v.z))"
        }
        switch self {
        case .magneticOffset(let v): return "mag-offset=\(vector(v))"
        case .magneticGain(let g): return "mag-gain=\(Self.number(g))"
        case .accelerationBias(let v): return "acc-bias=\(vector(v))"
        case .rotationRateBias(let v): return "gyro-bias=\(vector(v))"
        case .rotation(let axis, let degrees): return "rotate=\(axis.rawValue):\(Self.number(degrees))"
        case .rate(let hz): return "rate=\(Self.number(hz))"
        }
    }

    private static func number(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int(x)) : String(x)
    }

    /// `sample` as the perturbed device would read it; a rate leaves it as it is.
    public func apply(to sample: MotionSample) -> MotionSample {
        var s = sample
        let hasGyroscope = s.rotationRate != .zero
        let hasMagnetometer = s.magneticField != .zero
        switch self {
        case .magneticOffset(let v): if hasMagnetometer { s.magneticField += v }
        case .magneticGain(let g): s.magneticField *= g
        case .accelerationBias(let v): s.acceleration += v
        case .rotationRateBias(let v): if hasGyroscope { s.rotationRate += v }
        case .rotation(let axis, let degrees):
            let r = Self.rotationMatrix(axis, degrees: degrees)
            s.acceleration = Self.multiply(r, s.acceleration)
            s.rotationRate = Self.multiply(r, s.rotationRate)
            s.magneticField = Self.multiply(r, s.magneticField)
        case .rate: break
        }
        return s
    }

    /// What turning the phone by `degrees` about `axis` does to a vector
    /// measured in its frame (rows of the matrix). CoreMotion's sign: the
    /// accelerometer reads -1 g on the axis pointing up.
    static func rotationMatrix(_ axis: RotationAxis, degrees: Double) -> (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>) {
        let a = degrees * .pi / 180
        let (c, s) = (cos(a), sin(a))
        switch axis {
        case .pitch: return (.init(1, 0, 0), .init(0, c, s), .init(0, -s, c))
        case .roll: return (.init(c, 0, s), .init(0, 1, 0), .init(-s, 0, c))
        case .yaw: return (.init(c, -s, 0), .init(s, c, 0), .init(0, 0, 1))
        }
    }

    static func multiply(_ rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>), _ v: SIMD3<Double>) -> SIMD3<Double> {
        .init((rows.0 * v).sum(), (rows.1 * v).sum(), (rows.2 * v).sum())
    }

    /// The sampling rate this perturbation sets, if it is one.
    public var rate: Double? {
        if case .rate(let hz) = self { return hz }
        return nil
    }

    /// Parses a comma-separated list, each item one perturbation:
    /// `mag-offset=600` (µT on every axis) or `mag-offset=-590:0:0` (x:y:z),
    /// `mag-gain=2`, `acc-bias=0.05` (g), `gyro-bias=-0.05` (rad/s),
    /// `rotate=pitch:60` (degrees; pitch, roll or yaw), `rate=100` (Hz),
    /// and `calibration` for ``calibrationSuite``.
    public static func parseList(_ text: String) throws(SensorPerturbationError) -> [SensorPerturbation] {
        var out: [SensorPerturbation] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let item = item.trimmingCharacters(in: .whitespaces)
            if item == "calibration" {
                out += calibrationSuite
                continue
            }
            out.append(try parse(item))
        }
        return out
    }

    private static func largest(_ v: SIMD3<Double>) -> Double { max(abs(v.x), abs(v.y), abs(v.z)) }

    /// One perturbation (see ``parseList(_:)``).
    public static func parse(_ item: String) throws(SensorPerturbationError) -> SensorPerturbation {
        let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[1].isEmpty else { throw .init(item: item, reason: "write it as kind=value, e.g. mag-offset=600") }
        let (kind, value) = (parts[0], parts[1])
        func scalar(_ text: String, _ what: String) throws(SensorPerturbationError) -> Double {
            guard let x = Double(text), x.isFinite else { throw .init(item: item, reason: "\(what) must be a finite number, got '\(text)'") }
            return x
        }
        func vector(_ what: String) throws(SensorPerturbationError) -> SIMD3<Double> {
            let fields = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            switch fields.count {
            case 1: return .init(repeating: try scalar(fields[0], what))
            case 3: return .init(try scalar(fields[0], what), try scalar(fields[1], what), try scalar(fields[2], what))
            default: throw .init(item: item, reason: "\(what) takes one number (every axis) or three, x:y:z")
            }
        }
        switch kind {
        case "mag-offset":
            let v = try vector("the offset (µT)")
            guard Self.largest(v) <= 10_000 else { throw .init(item: item, reason: "an offset beyond ±10000 µT is no magnetometer") }
            return .magneticOffset(v)
        case "mag-gain":
            let g = try scalar(value, "the gain")
            guard g > 0, g <= 100 else { throw .init(item: item, reason: "the gain must be above 0 and at most 100") }
            return .magneticGain(g)
        case "acc-bias":
            let v = try vector("the bias (g)")
            guard Self.largest(v) <= 2 else { throw .init(item: item, reason: "a bias beyond ±2 g is no accelerometer") }
            return .accelerationBias(v)
        case "gyro-bias":
            let v = try vector("the bias (rad/s)")
            guard Self.largest(v) <= 10 else { throw .init(item: item, reason: "a bias beyond ±10 rad/s is no gyroscope") }
            return .rotationRateBias(v)
        case "rotate":
            let fields = value.split(separator: ":", maxSplits: 1).map(String.init)
            guard fields.count == 2, let axis = RotationAxis(rawValue: fields[0]) else {
                throw .init(item: item, reason: "write rotate=pitch:DEGREES (or roll: or yaw:)")
            }
            let degrees = try scalar(fields[1], "the angle (degrees)")
            guard abs(degrees) <= 360 else { throw .init(item: item, reason: "the angle must be within ±360 degrees") }
            return .rotation(axis, degrees: degrees)
        case "rate":
            let hz = try scalar(value, "the rate (Hz)")
            // Steps longer than 0.1 s are gaps to the resampler: below 20 Hz a recording would be all gaps.
            guard hz >= 20, hz <= 2000 else { throw .init(item: item, reason: "the rate must be 20 to 2000 Hz") }
            return .rate(hz)
        default:
            throw .init(item: item, reason: "unknown kind '\(kind)'; use mag-offset, mag-gain, acc-bias, gyro-bias, rotate, rate or calibration")
        }
    }
}

/// A `--perturb` item that cannot be read; says what to write instead.
public struct SensorPerturbationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var item: String
    public var reason: String
    public var description: String { "--perturb '\(item)': \(reason)" }
}
