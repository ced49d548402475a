/// Vectorized exp, sigmoid and tanh for the recurrent gates, where libm's
/// scalar calls would cost more than the matrix products. Accurate to a few
/// float32 ulps (Cephes expf polynomial), far inside the engine's 1e-5
/// agreement with Keras.
public enum VectorMath {
    public typealias Vector = SIMD16<Float>

    @_transparent
    public static func exp(_ input: Vector) -> Vector {
        var x = input.replacing(with: -87.336_544, where: input .< -87.336_544)
        x = x.replacing(with: 88.376_26, where: x .> 88.376_26)
        // Round x·log2(e) to an integer n by adding 1.5·2²³: n lands in the low mantissa bits.
        let shifter = Vector(repeating: 12_582_912)
        let shifted = x * 1.442_695_04 + shifter
        let n = shifted - shifter
        var r = x - n * 0.693_359_375
        r = r - n * -2.121_944_4e-4
        var p = Vector(repeating: 1.987_569_15e-4)
        p = p * r + 1.398_199_950_7e-3
        p = p * r + 8.333_451_907_3e-3
        p = p * r + 4.166_579_589_4e-2
        p = p * r + 1.666_666_545_9e-1
        p = p * r + 5.000_000_120_1e-1
        let y = p * r * r + r + 1
        let integer = unsafeBitCast(shifted, to: SIMD16<Int32>.self) &- unsafeBitCast(shifter, to: SIMD16<Int32>.self)
        let scale = unsafeBitCast((integer &+ 127) &<< 23, to: Vector.self)
        return y * scale
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
