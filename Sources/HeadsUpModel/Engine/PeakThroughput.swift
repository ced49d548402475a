/// Measures this machine's single-core multiply-add ceiling with the same
/// SIMD types the engine uses, so benchmarks can say what fraction of the
/// peak the engine reaches.
public enum PeakThroughput {
    public typealias Vector = SIMD16<Float>

    /// Runs `iterations` rounds of 12 independent fused multiply-adds on
    /// 16-lane vectors; returns the lanes' results folded (so the work cannot
    /// be optimized away) and the multiply-adds done.
    @inline(never)
    public static func run(iterations: Int) -> (checksum: Float, multiplyAdds: Int) {
        let m = Vector(repeating: 0.999_99)
        let a = Vector(repeating: 1e-6)
        var r0 = Vector(repeating: 1), r1 = Vector(repeating: 2), r2 = Vector(repeating: 3), r3 = Vector(repeating: 4)
        var r4 = Vector(repeating: 5), r5 = Vector(repeating: 6), r6 = Vector(repeating: 7), r7 = Vector(repeating: 8)
        var r8 = Vector(repeating: 9), r9 = Vector(repeating: 10), r10 = Vector(repeating: 11), r11 = Vector(repeating: 12)
        for _ in 0..<iterations {
            r0.addProduct(r0, m); r1.addProduct(r1, m); r2.addProduct(r2, m); r3.addProduct(r3, m)
            r4.addProduct(r4, m); r5.addProduct(r5, m); r6.addProduct(r6, m); r7.addProduct(r7, m)
            r8.addProduct(r8, m); r9.addProduct(r9, m); r10.addProduct(r10, m); r11.addProduct(r11, m)
            r0 += a
        }
        let total = r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7 + r8 + r9 + r10 + r11
        return (total.sum(), iterations * 12 * Vector.scalarCount)
    }
}
