import Foundation

/// A small seeded generator, so benchmark inputs are the same every run.
struct SplitMix64 {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Standard normal by Box–Muller.
    mutating func nextNormal() -> Float {
        let u1 = Double(next() >> 11) / Double(1 << 53) + 1e-300
        let u2 = Double(next() >> 11) / Double(1 << 53)
        return Float((-2 * log(u1)).squareRoot() * cos(2 * .pi * u2))
    }
}
