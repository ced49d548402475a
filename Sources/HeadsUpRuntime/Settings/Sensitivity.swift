import HeadsUpBeacons

/// Three levels of how readily HeadsUp warns, as phones' walking locks
/// offer them. `normal` is the model card's tuned decision values; `low`
/// and `high` shift them by fixed, documented amounts. Values set in a
/// configuration file or by a flag still win over the preset.
///
/// | setting | low (fewer warnings) | high (earlier, more warnings) |
/// |---|---|---|
/// | distraction.enter_threshold | + 0.10 (at most 0.95) | − 0.10 (at least 0.05) |
/// | distraction.time_constant | × 1.5 | × 0.5 |
/// | distraction.minimum_duration | + 0.5 s | × 0.5 |
/// | warning.proximity | one class closer (near → immediate) | one class farther (near → far) |
/// | distraction.exit_threshold, when set | + 0.10 | − 0.10 |
public enum Sensitivity: String, Sendable, CaseIterable {
    case low, normal, high

    /// The preset's values, as configuration keys, from the values below it (defaults and card).
    func shifts(from base: Settings) -> [(String, SettingValue)] {
        shiftedValues(from: base).map { key, value in
            guard case .number(let number) = value else { return (key, value) }
            // 0.36 + 0.1 is 0.45999999999999996 in binary: shown and used as the 0.46 it means.
            return (key, .number((number * 1e9).rounded() / 1e9))
        }
    }

    private func shiftedValues(from base: Settings) -> [(String, SettingValue)] {
        let distraction = base.distraction
        let proximities: [Proximity] = [.immediate, .near, .far]
        let position = proximities.firstIndex(of: base.warning.proximity) ?? 1
        let delta = self == .low ? 0.1 : -0.1
        // An exit threshold the card set moves with the enter one, so the hysteresis keeps its width.
        let exit: [(String, SettingValue)] =
            distraction.exitThreshold.map { [("distraction.exit_threshold", .number(min(0.9, max(0, $0 + delta))))] } ?? []
        switch self {
        case .normal:
            return []
        case .low:
            return [
                ("distraction.enter_threshold", .number(min(0.95, distraction.enterThreshold + 0.1))),
                ("distraction.time_constant", .number(min(60, distraction.timeConstant * 1.5))),
                ("distraction.minimum_duration", .number(min(60, distraction.minimumDuration + 0.5))),
                ("warning.proximity", .string(proximities[max(0, position - 1)].rawValue)),
            ] + exit
        case .high:
            return [
                ("distraction.enter_threshold", .number(max(0.05, distraction.enterThreshold - 0.1))),
                ("distraction.time_constant", .number(distraction.timeConstant * 0.5)),
                ("distraction.minimum_duration", .number(distraction.minimumDuration * 0.5)),
                ("warning.proximity", .string(proximities[min(proximities.count - 1, position + 1)].rawValue)),
            ] + exit
        }
    }
}
