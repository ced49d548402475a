/// Measures this machine's single-core multiply-add ceiling with the same
/// SIMD types the engine uses, so benchmarks can say what fraction of the
/// peak the engine reaches.
package enum PeakThroughput {
    package typealias Vector = SIMD16<Float>

    /// Runs `iterations` rounds of 12 independent fused multiply-adds on
    /// 16-lane vectors; returns the lanes' results folded (so the work cannot
    /// be optimized away) and the multiply-adds done.
    ///
    /// Each chain is r = a + r·m, one multiply-add per round: 12 chains keep
    /// two FMA pipes of 4-cycle latency busy. (An extra add on one chain, as
    /// this once had, makes that chain 7 cycles a round and the whole loop
    /// wait for it: it measured 86 % of the ceiling on Zen 5.) The values
    /// settle at a/(1 − m) = 0.1, far from overflow and subnormals.
    @inline(never)
    package static func run(iterations: Int) -> (checksum: Float, multiplyAdds: Int) {
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
            r0 = a.addingProduct(r0, m)
            r1 = a.addingProduct(r1, m)
            r2 = a.addingProduct(r2, m)
            r3 = a.addingProduct(r3, m)
            r4 = a.addingProduct(r4, m)
            r5 = a.addingProduct(r5, m)
            r6 = a.addingProduct(r6, m)
            r7 = a.addingProduct(r7, m)
            r8 = a.addingProduct(r8, m)
            r9 = a.addingProduct(r9, m)
            r10 = a.addingProduct(r10, m)
            r11 = a.addingProduct(r11, m)
        }
        let total = r0 + r1 + r2 + r3 + r4 + r5 + r6 + r7 + r8 + r9 + r10 + r11
        return (total.sum(), iterations * 12 * Vector.scalarCount)
    }
}
