/// One reading of all three motion sensors at one instant, in the model's
/// units: acceleration in g (gravity included), rotation rate in rad/s,
/// magnetic field in µT.
///
/// Samples flow through the whole data layer: the CSV reader and the IIO
/// reader produce them, the resampler interpolates them onto the 50 Hz grid,
/// and the windower stacks them into model inputs.
public struct MotionSample: Sendable, Equatable {
    /// Seconds; Unix time for recordings, any monotonic origin for live data.
    public var time: Double
    public var acceleration: SIMD3<Double>
    public var rotationRate: SIMD3<Double>
    public var magneticField: SIMD3<Double>
    /// The recorded label; `nil` for live data, whose label is what we predict.
    public var label: ActivityLabel?

    public init(
        time: Double,
        acceleration: SIMD3<Double>,
        rotationRate: SIMD3<Double>,
        magneticField: SIMD3<Double>,
        label: ActivityLabel? = nil
    ) {
        self.time = time
        self.acceleration = acceleration
        self.rotationRate = rotationRate
        self.magneticField = magneticField
        self.label = label
    }

    /// The value of one model channel.
    public subscript(channel: SensorChannel) -> Double {
        switch channel {
        case .accelerationX: acceleration.x
        case .accelerationY: acceleration.y
        case .accelerationZ: acceleration.z
        case .rotationRateX: rotationRate.x
        case .rotationRateY: rotationRate.y
        case .rotationRateZ: rotationRate.z
        case .magneticFieldX: magneticField.x
        case .magneticFieldY: magneticField.y
        case .magneticFieldZ: magneticField.z
        }
    }

    /// Linear interpolation between two samples' sensor values at `time`;
    /// the label is the nearer sample's (the earlier one on a tie).
    @inlinable
    public static func interpolate(_ a: MotionSample, _ b: MotionSample, at time: Double) -> MotionSample {
        let fraction = (time - a.time) / (b.time - a.time)
        return MotionSample(
            time: time,
            acceleration: a.acceleration + (b.acceleration - a.acceleration) * fraction,
            rotationRate: a.rotationRate + (b.rotationRate - a.rotationRate) * fraction,
            magneticField: a.magneticField + (b.magneticField - a.magneticField) * fraction,
            label: time - a.time <= b.time - time ? a.label : b.label)
    }
}
