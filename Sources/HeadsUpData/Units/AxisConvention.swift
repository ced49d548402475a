/// The axis and sign convention of the data a model was trained on.
///
/// Both conventions use the phone's frame (x right, y up the screen, z out
/// of the screen), but CoreMotion reports acceleration with the opposite
/// sign: an iPhone lying face up reads about −1 g on z, Android and IIO
/// about +9.8 m/s². A model trained on iPhone data scores Android/IIO data
/// inverted unless the acceleration is negated.
public enum AxisConvention: String, Sendable, CaseIterable, Codable {
    /// iPhone CoreMotion: gravity reads −1 g on the axis pointing up.
    case coreMotion = "coremotion"
    /// Android and Linux IIO: gravity reads +9.8 m/s² on the axis pointing up.
    case android = "android"

    /// Converts a sample in IIO/Android convention to this convention.
    public func fromIIO(acceleration: SIMD3<Double>) -> SIMD3<Double> {
        self == .coreMotion ? -acceleration : acceleration
    }

    /// Converts acceleration recorded in `source` convention to this one.
    public func convert(acceleration: SIMD3<Double>, from source: AxisConvention) -> SIMD3<Double> {
        source == self ? acceleration : -acceleration
    }

    public var name: String { self == .coreMotion ? "CoreMotion (iPhone)" : "Android/IIO" }
}
