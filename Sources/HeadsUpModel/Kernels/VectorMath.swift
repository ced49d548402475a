/// Vectorized exp, sigmoid and tanh for the recurrent gates, where libm's
/// scalar calls would cost more than the matrix products. Accurate to a few
/// float32 ulps (Cephes expf polynomial), far inside the engine's 1e-5
/// agreement with Keras.
public enum VectorMath {
    public typealias Vector = SIMD16<Float>

    @_transparent
    public static func exp(_ input: Vector) -> Vector {
        exp(input, lowest: -87.336_544, highest: 88.376_26)
    }

    /// e^x with x first clamped to [lowest, highest] (at most the float
    /// range, −87.3…88.4). Every multiply-add is fused: Swift does not
    /// contract `a * b + c` by itself, and the unfused chain is twice as long.
    @_transparent
    public static func exp(_ input: Vector, lowest: Float, highest: Float) -> Vector {
        var x = input.replacing(with: lowest, where: input .< lowest)
        x = x.replacing(with: highest, where: x .> highest)
        // Round x·log2(e) to an integer n by adding 1.5·2²³: n lands in the low mantissa bits.
        let shifter = Vector(repeating: 12_582_912)
        let shifted = shifter.addingProduct(x, Vector(repeating: 1.442_695_04))
        let n = shifted - shifter
        // r = x − n·ln 2, with ln 2 split in two so the reduction stays exact.
        var r = x.addingProduct(n, Vector(repeating: -0.693_359_375))
        r = r.addingProduct(n, Vector(repeating: 2.121_944_4e-4))
        var p = Vector(repeating: 1.398_199_950_7e-3).addingProduct(Vector(repeating: 1.987_569_15e-4), r)
        p = Vector(repeating: 8.333_451_907_3e-3).addingProduct(p, r)
        p = Vector(repeating: 4.166_579_589_4e-2).addingProduct(p, r)
        p = Vector(repeating: 1.666_666_545_9e-1).addingProduct(p, r)
        p = Vector(repeating: 5.000_000_120_1e-1).addingProduct(p, r)
        let y = (r + 1).addingProduct(p, r * r)
        let integer = unsafeBitCast(shifted, to: SIMD16<Int32>.self) &- unsafeBitCast(shifter, to: SIMD16<Int32>.self)
        let scale = unsafeBitCast((integer &+ 127) &<< 23, to: Vector.self)
        return y * scale
    }

    /// One LSTM cell update from the four gate pre-activations (Keras's
    /// standard sigmoid gates and tanh): returns the new cell state
    /// c' = σ(f)·c + σ(i)·tanh(g) and output h = σ(o)·tanh(c').
    ///
    /// Written over common denominators so it takes two divisions instead
    /// of five; divisions are the slowest vector operation and this runs on
    /// the recurrence's critical path. With A = 1 + e^−i, B = 1 + e^−f,
    /// E = e^−2g, D = 1 + e^−o and F = e^−2c':
    ///   c' = (c·A(1+E) + (1−E)·B) / (B·A(1+E)),  h = (1−F) / (D·(1+F)).
    /// Exponents are clamped to ±28 so a product of three factors stays
    /// below e^84 < Float.greatestFiniteMagnitude; the clamp changes σ and
    /// tanh by under 1e-12. |c| grows by at most 1 per step, so c·A(1+E)
    /// stays finite for any realistic sequence.
    @_transparent
    public static func lstmCell(
        input i: Vector, forget f: Vector, candidate g: Vector, output o: Vector, cell c: Vector
    ) -> (cell: Vector, hidden: Vector) {
        let a = exp(-i, lowest: -28, highest: 28) + 1
        let b = exp(-f, lowest: -28, highest: 28) + 1
        let e = exp(g * -2, lowest: -28, highest: 28)
        let d = exp(-o, lowest: -28, highest: 28) + 1
        let ae = a * (e + 1)
        let cell = (c * ae).addingProduct(1 - e, b) / (b * ae)
        let ef = exp(cell * -2, lowest: -28, highest: 28)
        return (cell, (1 - ef) / (d * (1 + ef)))
    }

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
        case .relu: return x.replacing(with: 0, where: x .< 0)
        case .hardSigmoid(let slope):
            let y = x * slope + 0.5
            return y.replacing(with: 0, where: y .< 0).replacing(with: 1, where: y .> 1)
        default:
            var copy = x
            withUnsafeMutableBytes(of: &copy) { activation.apply($0.baseAddress!.assumingMemoryBound(to: Float.self), count: 16, lastAxis: 16) }
            return copy
        }
    }
}
