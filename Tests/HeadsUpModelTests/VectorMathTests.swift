import Foundation
import HeadsUpKernels
import Testing

/// The vector exp and the fused LSTM cell against Double-precision libm,
/// over the whole float range the gates can see: they carry every recurrent
/// step, so their error bounds the engine's agreement with Keras.
@Suite("Vector math")
struct VectorMathTests {
    typealias Vector = SIMD16<Float>
    /// The fused form (the AVX-512, AVX2 and NEON levels); in a debug build its
    /// multiply-adds are library calls, which changes their speed, not their results.
    typealias VectorMath = HeadsUpKernels.VectorMath<FusedMultiplyAdd>

    /// Deterministic values spread over [-scale, scale].
    static func samples(_ count: Int, scale: Float, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Float(state >> 40) / Float(1 << 24) * 2 - 1) * scale
        }
    }

    /// The larger error; NaN counts as infinitely wrong (Swift's `max`
    /// would drop it).
    static func worse(_ worst: Double, _ error: Double) -> Double {
        error.isNaN ? .infinity : max(worst, error)
    }

    static func vectors(_ values: [Float]) -> [Vector] {
        stride(from: 0, to: values.count - 15, by: 16).map { Vector(values[$0..<($0 + 16)]) }
    }

    @Test func expIsWithinAFewUlpsEverywhere() {
        var worst = 0.0
        for scale: Float in [1, 10, 87] {
            for x in Self.vectors(Self.samples(16_000, scale: scale, seed: 7)) {
                let y = VectorMath.exp(x)
                for lane in 0..<16 {
                    let exact = Foundation.exp(Double(x[lane]))
                    worst = Self.worse(worst, abs(Double(y[lane]) - exact) / exact)
                }
            }
        }
        #expect(worst < 4e-7, "worst relative error \(worst)")
        // Beyond the float range it saturates instead of wrapping.
        let extremes = VectorMath.exp(Vector(repeating: 1000))
        #expect(extremes[0].isFinite && extremes[0] > 1e38)
        #expect(VectorMath.exp(Vector(repeating: -1000))[0] < 1e-37)
    }

    @Test func sigmoidAndTanhMatchLibm() {
        var worstSigmoid = 0.0
        var worstTanh = 0.0
        var worstRational = 0.0
        var worstRationalSigmoid = 0.0
        var largest: Float = 0
        var denominators = (low: Float.infinity, high: -Float.infinity)
        for scale: Float in [0.5, 5, 60] {
            for x in Self.vectors(Self.samples(16_000, scale: scale, seed: 11)) {
                let s = VectorMath.sigmoid(x)
                let t = VectorMath.tanh(x)
                let rational = VectorMath.rationalTanh(x)
                let rationalSigmoid = VectorMath.rationalSigmoid(x)
                let (_, sigmoidDenominator) = VectorMath.rationalSigmoidTerms(x)
                for lane in 0..<16 {
                    let v = Double(x[lane])
                    worstSigmoid = Self.worse(worstSigmoid, abs(Double(s[lane]) - 1 / (1 + Foundation.exp(-v))))
                    worstTanh = Self.worse(worstTanh, abs(Double(t[lane]) - Foundation.tanh(v)))
                    worstRational = Self.worse(worstRational, abs(Double(rational[lane]) - Foundation.tanh(v)))
                    worstRationalSigmoid = Self.worse(
                        worstRationalSigmoid, abs(Double(rationalSigmoid[lane]) - 1 / (1 + Foundation.exp(-v))))
                    denominators = (min(denominators.low, sigmoidDenominator[lane]), max(denominators.high, sigmoidDenominator[lane]))
                    largest = max(largest, abs(rational[lane]))
                }
            }
        }
        #expect(worstSigmoid < 3e-7, "sigmoid worst absolute error \(worstSigmoid)")
        #expect(worstTanh < 3e-7, "tanh worst absolute error \(worstTanh)")
        #expect(worstRational < 3e-7, "rational tanh worst absolute error \(worstRational)")
        #expect(worstRationalSigmoid < 3e-7, "rational sigmoid worst absolute error \(worstRationalSigmoid)")
        // The LSTM cell multiplies three denominators: they must stay in a safe range.
        #expect(denominators.low > 0.99 && denominators.high < 500, "sigmoid denominators \(denominators)")
        #expect(largest <= 1, "rational tanh must stay within [-1, 1]")
    }

    /// The common-denominator form must equal the textbook cell, including
    /// saturated gates (|x| up to 200) and large cell states, where its
    /// products of exponentials would overflow without the clamp.
    @Test func lstmCellEqualsTheTextbookFormula() {
        var worstCell = 0.0
        var worstHidden = 0.0
        func sigmoid(_ x: Float) -> Double { 1 / (1 + Foundation.exp(-Double(x))) }
        for (index, scale) in [Float(1), 4, 12, 40, 200].enumerated() {
            let gates = Self.vectors(Self.samples(4 * 16 * 500, scale: scale, seed: UInt64(100 + index)))
            let cells = Self.vectors(Self.samples(16 * 500, scale: index.isMultiple(of: 2) ? 3 : 400, seed: UInt64(200 + index)))
            for n in 0..<cells.count {
                let (i, f, g, o, c) = (gates[4 * n], gates[4 * n + 1], gates[4 * n + 2], gates[4 * n + 3], cells[n])
                let (cell, hidden) = VectorMath.lstmCell(input: i, forget: f, candidate: g, output: o, cell: c)
                for lane in 0..<16 {
                    let exactCell = sigmoid(f[lane]) * Double(c[lane]) + sigmoid(i[lane]) * Foundation.tanh(Double(g[lane]))
                    let exactHidden = sigmoid(o[lane]) * Foundation.tanh(exactCell)
                    worstCell = Self.worse(worstCell, abs(Double(cell[lane]) - exactCell) / max(1, abs(exactCell)))
                    worstHidden = Self.worse(worstHidden, abs(Double(hidden[lane]) - exactHidden))
                }
            }
        }
        #expect(worstCell < 5e-7, "cell worst error \(worstCell)")
        #expect(worstHidden < 5e-7, "hidden worst absolute error \(worstHidden)")
    }
}
