/// The instruction-set levels HeadsUp compiles its kernels for, best
/// first. The kernels are the same Swift code at every level; each level
/// module compiles it with its own `-target-cpu` (Package.swift), and the
/// model picks one when it loads (``KernelTable/forThisMachine(environment:)``).
public enum KernelLevel: String, Sendable, CaseIterable, CustomStringConvertible {
    /// The avx512 level's instructions scheduled for AMD Zen 4/5 (compiled
    /// for znver4): only on AMD CPUs with Zen 4's AVX-512 extensions.
    case avx512Zen = "avx512-zen"
    /// AVX-512 (F, CD, BW, DQ, VL; compiled for skylake-avx512), 512-bit FMA.
    case avx512
    /// AVX2 and FMA (compiled for haswell), 256-bit.
    case avx2
    /// AArch64's NEON with FMA, 128-bit, tiled for its 32 registers.
    case neon
    /// What any CPU of the architecture runs: SSE2 on x86-64 (multiply
    /// and add apart); on aarch64 NEON with FMA tiled for 16 registers,
    /// a second implementation to check the neon level against.
    case baseline

    public var description: String {
        switch self {
        case .avx512Zen: "avx512-zen (AVX-512, 512-bit FMA, scheduled for AMD Zen 4/5)"
        case .avx512: "avx512 (AVX-512 F/CD/BW/DQ/VL, 512-bit FMA)"
        case .avx2: "avx2 (AVX2 and FMA, 256-bit)"
        case .neon: "neon (NEON with FMA, 128-bit, 32 registers)"
        case .baseline:
            #if arch(x86_64)
                "baseline (x86-64: SSE2, 128-bit, multiply and add apart)"
            #else
                "baseline (NEON with FMA, 128-bit, tiled for 16 registers)"
            #endif
        }
    }

    /// Whether the level's multiply-add is one fused instruction; the
    /// benchmarks' peak counts a multiply plus an add as one otherwise.
    public var hasFusedMultiplyAdd: Bool {
        #if arch(x86_64)
            self != .baseline
        #else
            true
        #endif
    }

    /// The level a `HEADSUP_KERNELS` value names (`avx512-zen`, `avx512`, `avx2`, `neon`, `baseline`).
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }
}
