/// How a kernel computes c + a·b on vectors, the one operation whose
/// instruction differs between CPU levels. Every kernel is generic over
/// it, so the math is written once and each level module instantiates it.
///
/// On x86-64 without FMA (the baseline level), `addingProduct` would be a
/// software `fmaf` call per lane, about 100 times slower than a multiply
/// and an add; that level takes ``SeparateMultiplyAdd`` instead.
public protocol MultiplyAdd {
    static func adding<V: SIMD>(_ c: V, _ a: V, _ b: V) -> V where V.Scalar == Float
    /// Floats in one vector register of the level (16 AVX-512, 8 AVX2, 4
    /// SSE/NEON): the matrix kernel sizes its tiles so the accumulators fit.
    static var registerLanes: Int { get }
    /// Vector registers a pass may fill with accumulators; the rest hold
    /// the weights and the broadcast input. 16 of AVX-512's 32, 12 of the
    /// 16 of AVX2 and SSE, 24 of NEON's 32.
    static var accumulatorRegisters: Int { get }
    /// Whether `adding` is one fused instruction (one rounding).
    static var isFused: Bool { get }
}

extension MultiplyAdd {
    public static var registerLanes: Int { 16 }
    public static var accumulatorRegisters: Int { registerLanes >= 16 ? 16 : 12 }
    public static var isFused: Bool { true }
}

/// One fused multiply-add instruction (FMA3 on x86-64, NEON on aarch64): one rounding.
public enum FusedMultiplyAdd: MultiplyAdd {
    @_transparent
    public static func adding<V: SIMD>(_ c: V, _ a: V, _ b: V) -> V where V.Scalar == Float {
        c.addingProduct(a, b)
    }
}

/// A multiply, then an add: two roundings, for CPUs without FMA.
public enum SeparateMultiplyAdd: MultiplyAdd {
    public static var isFused: Bool { false }

    @_transparent
    public static func adding<V: SIMD>(_ c: V, _ a: V, _ b: V) -> V where V.Scalar == Float {
        c + a * b
    }
}

/// The baseline level's operation: x86-64 guarantees only SSE2 (no FMA);
/// every other architecture Swift targets has a fused multiply-add.
#if arch(x86_64) || arch(i386)
    public typealias BaselineMultiplyAdd = SeparateMultiplyAdd
#else
    public typealias BaselineMultiplyAdd = FusedMultiplyAdd
#endif
