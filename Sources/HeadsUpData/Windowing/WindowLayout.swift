/// How a 9×50 window is flattened into the model's input vector. The model
/// declares which one it was trained with.
public enum WindowLayout: String, Sendable, CaseIterable, Codable {
    /// `index = channel × length + t`: all 50 acc_x, then all acc_y, …
    /// What the seed notebook fed its `Reshape((50, 9))`.
    case channelMajor = "channel-major"
    /// `index = t × 9 + channel`: one sample's nine values after another;
    /// a real (time, channel) sequence for a recurrent layer.
    case timeMajor = "time-major"
}
