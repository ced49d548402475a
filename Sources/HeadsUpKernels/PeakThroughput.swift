/// Measures this machine's single-core multiply-add ceiling with the same
/// SIMD types the engine uses, so benchmarks can say what fraction of the
/// peak the engine reaches.
public enum PeakThroughput<M: MultiplyAdd> {
    /// Runs `iterations` rounds of 12 independent fused multiply-adds on
    /// 16-lane vectors; returns the lanes' results folded (so the work cannot
    /// be optimized away) and the multiply-adds done.
    ///
    /// Each chain is r = a + r·m, one multiply-add per round: 12 chains keep
    /// two FMA pipes of 4-cycle latency busy. (An extra add on one chain, as
    /// this once had, makes that chain 7 cycles a round and the whole loop
    /// wait for it: it measured 86 % of the ceiling on Zen 5.) The values
    /// settle at a/(1 − m) = 0.1, far from overflow and subnormals.
    @inlinable
    public static func run(iterations: Int, lanes: Int) -> (checksum: Float, multiplyAdds: Int) {
        switch lanes {
        case 4: run(iterations: iterations, SIMD4<Float>.self)
        case 8: run(iterations: iterations, SIMD8<Float>.self)
        default: run(iterations: iterations, SIMD16<Float>.self)
        }
    }

    /// The loop on vectors of the level's register width: 12 chains of
    /// wider vectors than the registers would not fit in them.
    @inlinable @inline(__always)
    static func run<Vector: SIMD>(iterations: Int, _: Vector.Type) -> (checksum: Float, multiplyAdds: Int) where Vector.Scalar == Float {
        let m = Vector(repeating: 0.999_99)
        let a = Vector(repeating: 1e-6)
        var r0 = Vector(repeating: 1)
        var r1 = Vector(repeating: 2)
        var r2 = Vector(repeating: 3)
        var r3 = Vector(repeating: 4)
        var r4 = Vector(repeating: 5)
        var r5 = Vector(repeating: 6)
        var r6 = Vector(repeating: 7)
        var r7 = Vector(repeating: 8)
        var r8 = Vector(repeating: 9)
        var r9 = Vector(repeating: 10)
        var r10 = Vector(repeating: 11)
        var r11 = Vector(repeating: 12)
        for _ in 0..<iterations {
            r0 = M.adding(a, r0, m)
            r1 = M.adding(a, r1, m)
            r2 = M.adding(a, r2, m)
            r3 = M.adding(a, r3, m)
            r4 = M.adding(a, r4, m)
            r5 = M.adding(a, r5, m)
            r6 = M.adding(a, r6, m)
            r7 = M.adding(a, r7, m)
            r8 = M.adding(a, r8, m)
            r9 = M.adding(a, r9, m)
            r10 = M.adding(a, r10, m)
            r11 = M.adding(a, r11, m)
        }
        let total = r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7 + r8 + r9 + r10 + r11
        return (total.sum(), iterations * 12 * Vector.scalarCount)
    }
}
