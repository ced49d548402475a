/// Vectorized exp, sigmoid and tanh for the recurrent gates, where libm's
/// scalar calls would cost more than the matrix products. Accurate to a few
/// float32 ulps (Cephes expf polynomial), far inside the engine's 1e-5
/// agreement with Keras.
public enum VectorMath<M: MultiplyAdd> {
    public typealias Vector = SIMD16<Float>

    @_transparent
    public static func exp(_ input: Vector) -> Vector {
        exp(input, lowest: -87.336_544, highest: 88.376_26)
    }

    /// e^x with x first clamped to [lowest, highest] (at most the float
    /// range, −87.3…88.4).
    @_transparent
    public static func exp(_ input: Vector, lowest: Float, highest: Float) -> Vector {
        exp(input, sign: 1, lowest: lowest, highest: highest)
    }

    /// e^(sign·x), sign ±1, with x first clamped to [lowest, highest]
    /// (sign·x within the float range). A negative sign is folded into the
    /// constants instead of costing a negation; the results are bit for bit
    /// those of exp(−x). Every multiply-add goes through `M`: fused where the
    /// level has FMA (Swift does not contract `a * b + c` by itself, and the
    /// unfused chain is twice as long), a multiply and an add where it has not.
    @_transparent
    public static func exp(_ input: Vector, sign: Float, lowest: Float, highest: Float) -> Vector {
        let x = clamped(input, lowest, highest)
        // Round sign·x·log2(e) to an integer n by adding 1.5·2²³ + 127: n + 127, the
        // exponent field of 2ⁿ, lands in the low mantissa bits.
        let shifter = Vector(repeating: 12_583_039)
        let shifted = M.adding(shifter, x, Vector(repeating: sign * 1.442_695_04))
        let n = shifted - shifter
        // ρ = sign·r, r = sign·x − n·ln 2, with ln 2 split in two so the reduction stays exact.
        var rho = M.adding(x, n, Vector(repeating: sign * -0.693_359_375))
        rho = M.adding(rho, n, Vector(repeating: sign * 2.121_944_4e-4))
        // e^r = 1 + r + r²·p(r), p(r) = Σ cₖrᵏ run on ρ with coefficients cₖ·signᵏ.
        var p = M.adding(Vector(repeating: 1.398_199_950_7e-3), Vector(repeating: sign * 1.987_569_15e-4), rho)
        p = M.adding(Vector(repeating: sign * 8.333_451_907_3e-3), p, rho)
        p = M.adding(Vector(repeating: 4.166_579_589_4e-2), p, rho)
        p = M.adding(Vector(repeating: sign * 1.666_666_545_9e-1), p, rho)
        p = M.adding(Vector(repeating: 5.000_000_120_1e-1), p, rho)
        let y = M.adding((sign * rho + 1), p, rho * rho)
        let scale = unsafeBitCast(unsafeBitCast(shifted, to: SIMD16<Int32>.self) &<< 23, to: Vector.self)
        return y * scale
    }

    /// One LSTM cell update from the four gate pre-activations (Keras's
    /// standard sigmoid gates and tanh): returns the new cell state
    /// c' = σ(f)·c + σ(i)·tanh(g) and output h = σ(o)·tanh(c').
    ///
    /// It runs once per 16 units per step and shares the vector pipes with
    /// the step's h·U, so it is written for few vector operations
    /// (docs/notes/2026-11-26-baseline-sse.md measured that its cost is its
    /// throughput, not its latency, with the bench-recurrent-step target). The input and output gates and both tanh
    /// are ratios of polynomials (``rationalSigmoidTerms(_:)``,
    /// ``rationalTanhTerms(_:)``: about 14 operations where an exp-based
    /// sigmoid needs about 20). The forget gate keeps the exp: it multiplies the
    /// cell state, which can be large, and the rational σ's absolute error
    /// near 0 (~6e-8, from 1/2 + P/Q) would be multiplied by it. The ratios
    /// go over common denominators, two divisions instead of five: with
    /// σ(i) = N_i/D_i, tanh(g) = P_g/Q_g, σ(o) = N_o/D_o and B = 1 + e^−f,
    ///   c' = (c·D_i·Q_g + N_i·P_g·B) / (B·D_i·Q_g),  h = N_o·P_c' / (D_o·Q_c').
    /// D ∈ [0.99, 500], Q ∈ [0.0048, 1] and B ≤ 1 + e^28 on the clamped
    /// ranges, so no product overflows; |c| grows by at most 1 per step.
    /// Each N comes doubled and each Q too (their coefficients doubled,
    /// which is exact): N appears only over D·Q, so the factors cancel and
    /// the results are the same bits, without the multiply by 1/2 that N
    /// would cost.
    @_transparent
    public static func lstmCell(
        input i: Vector, forget f: Vector, candidate g: Vector, output o: Vector, cell c: Vector
    ) -> (cell: Vector, hidden: Vector) {
        let (inputN, inputD) = rationalSigmoidTerms(i, numeratorScale: 2)
        let forgetB = exp(f, sign: -1, lowest: -28, highest: 28) + 1
        let (candidateP, candidateQ) = rationalTanhTerms(g, denominatorScale: 2)
        let (outputN, outputD) = rationalSigmoidTerms(o, numeratorScale: 2)
        let inputDenominators = inputD * candidateQ
        let added = inputN * candidateP
        let cell = M.adding((c * inputDenominators), added, forgetB) / (forgetB * inputDenominators)
        let (cellP, cellQ) = rationalTanhTerms(cell, denominatorScale: 2)
        return (cell, (outputN * cellP) / (outputD * cellQ))
    }

    /// σ(x) = N/D as the rational minimax approximation 1/2 + x·P(x²)/Q(x²),
    /// degrees 9/10, on |x| ≤ 18 (beyond it σ rounds to 0 or 1 in float32).
    /// These are the coefficients of Eigen's and ONNX Runtime's (MLAS) fast
    /// float logistic, the function their LSTM kernels evaluate. Absolute
    /// error ≤ 3e-7; D ∈ [0.99, 500]. Returns (numeratorScale·N, D);
    /// with a literal scale the scaled coefficients are constants.
    @_transparent
    public static func rationalSigmoidTerms(_ input: Vector, numeratorScale k: Float = 1) -> (numerator: Vector, denominator: Vector) {
        let x = clamped(input, -18, 18)
        let s = x * x
        var p = M.adding(Vector(repeating: k * 1.156_273_244_599_42e-07), Vector(repeating: k * 4.370_310_125_798_01e-11), s)
        p = M.adding(Vector(repeating: k * 6.085_748_646_001_43e-05), p, s)
        p = M.adding(Vector(repeating: k * 8.513_771_333_047_01e-03), p, s)
        p = M.adding(Vector(repeating: k * 2.482_879_470_615_29e-01), p, s)
        var q = M.adding(Vector(repeating: 5.761_021_369_934_27e-09), Vector(repeating: 6.102_473_897_556_81e-13), s)
        q = M.adding(Vector(repeating: 6.291_067_850_170_40e-06), q, s)
        q = M.adding(Vector(repeating: 1.701_988_173_740_94e-03), q, s)
        q = M.adding(Vector(repeating: 1.168_176_569_044_53e-01), q, s)
        q = M.adding(Vector(repeating: 9.931_519_210_231_80e-01), q, s)
        // N = Q/2 + x·P; for k = 2 the product with 1 folds away.
        return (M.adding((q * (k * 0.5)), p, x), q)
    }

    /// σ(x) as ``rationalSigmoidTerms(_:)``'s one division.
    @_transparent
    public static func rationalSigmoid(_ x: Vector) -> Vector {
        let (numerator, denominator) = rationalSigmoidTerms(x)
        return numerator / denominator
    }

    /// tanh as the odd rational minimax approximation x·P(x²)/Q(x²), degrees
    /// 13/6, on |x| ≤ 7.905 (beyond it tanh rounds to ±1 in float32). These
    /// are the coefficients of Eigen's fast float tanh, which is what
    /// TensorFlow's CPU kernels, XLA and ONNX Runtime's MLAS evaluate, so it
    /// is also what Keras computed. Absolute error ≤ 3e-7, |result| < 1.
    @_transparent
    public static func rationalTanh(_ x: Vector) -> Vector {
        let (numerator, denominator) = rationalTanhTerms(x)
        return numerator / denominator
    }

    /// ``rationalTanh(_:)`` as (P, denominatorScale·Q).
    @_transparent
    public static func rationalTanhTerms(_ input: Vector, denominatorScale k: Float = 1) -> (numerator: Vector, denominator: Vector) {
        let x = clamped(input, -7.905_311_1, 7.905_311_1)
        let s = x * x
        var p = M.adding(Vector(repeating: 2.000_187_904_824_77e-13), Vector(repeating: -2.760_768_477_423_55e-16), s)
        p = M.adding(Vector(repeating: -8.604_671_522_137_35e-11), p, s)
        p = M.adding(Vector(repeating: 5.122_297_090_371_14e-08), p, s)
        p = M.adding(Vector(repeating: 1.485_722_357_179_79e-05), p, s)
        p = M.adding(Vector(repeating: 6.372_619_288_754_36e-04), p, s)
        p = M.adding(Vector(repeating: 4.893_524_558_917_86e-03), p, s)
        var q = M.adding(Vector(repeating: k * 1.185_347_056_866_54e-04), Vector(repeating: k * 1.198_258_394_667_02e-06), s)
        q = M.adding(Vector(repeating: k * 2.268_434_632_439_00e-03), q, s)
        q = M.adding(Vector(repeating: k * 4.893_525_185_543_85e-03), q, s)
        return (p * x, q)
    }

    /// x limited to [lowest, highest]: each approximation holds only on its range.
    @_transparent @usableFromInline
    static func clamped(_ x: Vector, _ lowest: Float, _ highest: Float) -> Vector {
        // Each comparison on the previous result, so that LLVM emits one max and one min.
        lowered(raised(x, to: lowest), to: highest)
    }

    /// `x` with the lanes below `bound` replaced by it (a NaN stays NaN).
    /// On x86 LLVM makes `replacing(with:where:)` one max. On aarch64 it
    /// made a compare and branch per lane around stack spills on a
    /// 16-lane vector (half of the shipped model's instructions per window,
    /// counted under qemu: docs/notes/2026-11-27-arm64-cost-on-paper.md), and
    /// so did a select per lane; on NEON's own width, four lanes, the same
    /// select is one compare and one bit-select, so there it runs by quarters.
    @_transparent @usableFromInline
    static func raised(_ x: Vector, to bound: Float) -> Vector {
        #if arch(arm64)
            return byQuarters(x) { $0.replacing(with: bound, where: $0 .< bound) }
        #else
            return x.replacing(with: bound, where: x .< bound)
        #endif
    }

    /// `x` with the lanes above `bound` replaced by it (a NaN stays NaN); see ``raised(_:to:)``.
    @_transparent @usableFromInline
    static func lowered(_ x: Vector, to bound: Float) -> Vector {
        #if arch(arm64)
            return byQuarters(x) { $0.replacing(with: bound, where: $0 .> bound) }
        #else
            return x.replacing(with: bound, where: x .> bound)
        #endif
    }

    #if arch(arm64)
        /// `operation` on each 4-lane quarter of `x`: one NEON register each.
        @_transparent @usableFromInline
        static func byQuarters(_ x: Vector, _ operation: (SIMD4<Float>) -> SIMD4<Float>) -> Vector {
            let low = x.lowHalf
            let high = x.highHalf
            return Vector(
                lowHalf: SIMD8(lowHalf: operation(low.lowHalf), highHalf: operation(low.highHalf)),
                highHalf: SIMD8(lowHalf: operation(high.lowHalf), highHalf: operation(high.highHalf)))
        }
    #endif

    @_transparent
    public static func sigmoid(_ x: Vector) -> Vector {
        1 / (1 + exp(-x))
    }

    @_transparent
    public static func tanh(_ x: Vector) -> Vector {
        // tanh x = 1 − 2 / (e^{2x} + 1); exact in the limits, absolute error ~1e-7 near 0.
        1 - 2 / (exp(x + x) + 1)
    }

    /// Applies `activation` to a whole vector; the element-wise cases that
    /// recurrent layers use are vectorized, the others fall back to scalars.
    @inline(__always) @inlinable
    public static func apply(_ activation: Activation, _ x: Vector) -> Vector {
        switch activation {
        case .sigmoid: return sigmoid(x)
        case .tanh: return tanh(x)
        case .linear: return x
        case .relu: return raised(x, to: 0)
        case .hardSigmoid(let slope): return lowered(raised(x * slope + 0.5, to: 0), to: 1)
        default:
            var copy = x
            withUnsafeMutableBytes(of: &copy) { activation.apply($0.baseAddress!.assumingMemoryBound(to: Float.self), count: 16, lastAxis: 16) }
            return copy
        }
    }
}
