/// Code to run with a number of accumulator vectors known at compile time
/// (``MatrixMultiply/withAccumulators(vectors:_:)`` picks it): Swift has no
/// generic closures, so the code is a value of a type with a generic method.
public protocol AccumulatorCountSpecialized {
    func callAsFunction<let N: Int>(_ accumulators: InlineArray<N, SIMD16<Float>>.Type)
}

/// The engine's one matrix kernel: C = A·W (+ C, or + bias), with A
/// row-major [m × k] and W a ``PackedMatrix``. Every dense product goes
/// through here: a single window is m = 1 (a matrix–vector product), a batch
/// stacks windows as rows so each weight load serves several of them.
///
/// **One summation order.** Every output is summed the same way whatever
/// tile, pass or batch size computes it (``secondHalf(k:)``), so a window
/// scores the same to the bit alone (`live`) and in a batch (`evaluate`),
/// and every level with a fused multiply-add gives the same products.
///
/// C rows have `ldc` floats, at least `W.stride`; the padding columns are
/// written too (with zeros plus bias padding), which is why buffers are
/// allocated padded.
///
/// Generic over ``MultiplyAdd`` so that each CPU level's module compiles
/// its own copy (KernelTable.swift).
public enum MatrixMultiply<M: MultiplyAdd> {
    public typealias Vector = SIMD16<Float>
    public typealias Start = MatrixStart

    @inlinable @inline(__always)
    public static func multiply(
        _ a: UnsafePointer<Float>, lda: Int, rows m: Int,
        _ w: UnsafePointer<Float>, wRows k: Int, wStride: Int,
        into c: UnsafeMutablePointer<Float>, ldc: Int, start: Start
    ) {
        var row = 0
        if M.registerLanes < 16 && M.accumulatorRegisters < 24 {
            // 16 registers (AVX2, SSE): two rows at a time, each weight load serving both.
            while row + 2 <= m {
                let (a0, c0) = (a + row * lda, c + row * ldc)
                var column = 0
                if M.registerLanes >= 8 {
                    // 2 × 32: 4 accumulators are 8 AVX2 registers.
                    while column + 32 <= wStride {
                        inOrder(k: k, start: start) { range, part in
                            tile2x32(a0, lda: lda, w + column, range, wStride: wStride, c0 + column, ldc: ldc, part, column: column)
                        }
                        column += 32
                    }
                }
                // 2 × 16: 2 accumulators are 4 AVX2 or 8 SSE registers.
                while column < wStride {
                    inOrder(k: k, start: start) { range, part in
                        tile2x16(a0, lda: lda, w + column, range, wStride: wStride, c0 + column, ldc: ldc, part, column: column)
                    }
                    column += 16
                }
                row += 2
            }
        }
        // 32 registers: four rows at a time (AVX-512: 4 × 64 and 4 × 16; NEON: 4 × 16, 16 registers of 4 floats).
        while row + 4 <= m {
            let (a0, c0) = (a + row * lda, c + row * ldc)
            var column = 0
            if M.registerLanes >= 16 {
                while column + 64 <= wStride {
                    inOrder(k: k, start: start) { range, part in
                        tile4x64(a0, lda: lda, w + column, range, wStride: wStride, c0 + column, ldc: ldc, part, column: column)
                    }
                    column += 64
                }
            }
            while column < wStride {
                if M.registerLanes >= 16 {
                    // Four chains would wait on the multiply-add latency: both parts of k side by side.
                    tile4x16BothParts(a0, lda: lda, w + column, k: k, wStride: wStride, c0 + column, ldc: ldc, start: start, column: column)
                } else {
                    inOrder(k: k, start: start) { range, part in
                        tile4x16(a0, lda: lda, w + column, range, wStride: wStride, c0 + column, ldc: ldc, part, column: column)
                    }
                }
                column += 16
            }
            row += 4
        }
        while row < m {
            rowPasses(vectors: wStride / 16, a + row * lda, w, k: k, wStride: wStride, c + row * ldc, start: start)
            row += 1
        }
    }

    // MARK: The summation order

    /// Where the second part of the sum over k begins. Every output is
    ///
    ///     (start + a[0]·w[0] + … + a[h−1]·w[h−1]) + (a[h]·w[h] + … + a[k−1]·w[k−1])
    ///
    /// each part one chain of multiply-adds in the order of i, the second
    /// from zero, h = `secondHalf(k:)`. A single row's pass is a chain of k
    /// dependent multiply-adds per register, so it runs the two parts side
    /// by side where the registers allow (``rowPass``); the tiles have rows
    /// enough to keep the pipes busy and run the parts one after the other
    /// (``inOrder(k:start:_:)``). Under 16 terms one chain is short enough.
    ///
    /// Without a fused multiply-add (x86-64's baseline) a term is two
    /// instructions and only the add is on the chain: the sums stay whole,
    /// as splitting them made the seed model's single window 10 % slower on
    /// SSE for nothing. That level's order is its own either way: its
    /// products round twice.
    @inlinable @inline(__always)
    public static func secondHalf(k: Int) -> Int { M.isFused && k >= 16 ? k / 2 : k }

    /// Which part of the sum over k a tile computes.
    @usableFromInline
    enum Part {
        /// The first part, from `start`: its sums are stored in C.
        case first(Start)
        /// The second part, from zero: its sums are added to what the first stored.
        case second
    }

    /// Runs `tile` over the parts of k in order: the first from `start`, then the second (if any) added to it.
    @inlinable @inline(__always)
    static func inOrder(k: Int, start: Start, _ tile: (_ range: Range<Int>, _ part: Part) -> Void) {
        let half = secondHalf(k: k)
        tile(0..<half, .first(start))
        if half < k { tile(half..<k, .second) }
    }

    @inlinable @inline(__always)
    static func initial(_ c: UnsafeMutablePointer<Float>, _ part: Part, column: Int) -> Vector {
        switch part {
        case .first(let start): initial(c, start, column: column)
        case .second: Vector()
        }
    }

    @inlinable @inline(__always)
    static func finish(_ sum: Vector, _ c: UnsafeMutablePointer<Float>, _ part: Part) {
        switch part {
        case .first: store(sum, c)
        case .second: store(load(c) + sum, c)
        }
    }

    @inlinable @inline(__always)
    static func initial(_ c: UnsafeMutablePointer<Float>, _ start: Start, column: Int) -> Vector {
        switch start {
        case .zero: return Vector()
        case .bias(let bias): return load(bias + column)
        case .accumulate: return load(c)
        }
    }

    // MARK: One row

    /// Accumulator vectors (16 floats) one pass over k keeps in registers:
    /// ``MultiplyAdd/accumulatorRegisters`` (16 of AVX-512's, 6 vectors of
    /// AVX2 or NEON, 3 of SSE), at most 16. More would spill on every multiply-add.
    @inlinable
    static var vectorsPerPass: Int { min(16, M.accumulatorRegisters * M.registerLanes / 16) }

    /// One row against `vectors` vectors of columns, in as few passes as
    /// ``vectorsPerPass`` allows, of even sizes (13 vectors on AVX2: 5, 4
    /// and 4, not 6, 6 and 1, whose lone chain would wait on the latency).
    @inlinable @inline(__always)
    public static func rowPasses(
        vectors: Int, _ a: UnsafePointer<Float>, _ w: UnsafePointer<Float>, k: Int, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, start: Start
    ) {
        let passes = (vectors + vectorsPerPass - 1) / vectorsPerPass
        var first = 0
        for pass in 0..<passes {
            let count = (vectors - first) / (passes - pass)
            let column = 16 * first
            rowPass(vectors: count, a, w + column, k: k, wStride: wStride, c + column, start: start, column: column)
            first += count
        }
    }

    /// One row against up to 16 vectors of columns in a single pass over k:
    /// one broadcast of a[i] feeds every column. A single window's recurrent
    /// step (h·U, 13 vectors for 50 LSTM units) is this product, so it sets
    /// the pace of the recurrence.
    @inlinable @inline(__always)
    static func rowPass(
        vectors: Int, _ a: UnsafePointer<Float>, _ w: UnsafePointer<Float>, k: Int, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, start: Start, column: Int
    ) {
        withAccumulators(vectors: vectors, RowPass(a: a, w: w, k: k, wStride: wStride, c: c, start: start, column: column))
    }

    /// Runs `body` with the accumulator type for `vectors` (1…16) as a
    /// compile-time size, so that the loops around a ``rowPass`` are
    /// specialized once per call instead of dispatching on every row.
    @inlinable @inline(__always)
    static func withAccumulators<Body: AccumulatorCountSpecialized>(vectors: Int, _ body: Body) {
        switch vectors {
        case 1: body(InlineArray<1, Vector>.self)
        case 2: body(InlineArray<2, Vector>.self)
        case 3: body(InlineArray<3, Vector>.self)
        case 4: body(InlineArray<4, Vector>.self)
        case 5: body(InlineArray<5, Vector>.self)
        case 6: body(InlineArray<6, Vector>.self)
        case 7: body(InlineArray<7, Vector>.self)
        case 8: body(InlineArray<8, Vector>.self)
        case 9: body(InlineArray<9, Vector>.self)
        case 10: body(InlineArray<10, Vector>.self)
        case 11: body(InlineArray<11, Vector>.self)
        case 12: body(InlineArray<12, Vector>.self)
        case 13: body(InlineArray<13, Vector>.self)
        case 14: body(InlineArray<14, Vector>.self)
        case 15: body(InlineArray<15, Vector>.self)
        case 16: body(InlineArray<16, Vector>.self)
        default: preconditionFailure("\(vectors) accumulator vectors: 1 to 16 fit the registers")
        }
    }

    @usableFromInline
    struct RowPass: AccumulatorCountSpecialized {
        @usableFromInline let a: UnsafePointer<Float>, w: UnsafePointer<Float>, k: Int, wStride: Int
        @usableFromInline let c: UnsafeMutablePointer<Float>, start: Start, column: Int

        @inlinable
        init(a: UnsafePointer<Float>, w: UnsafePointer<Float>, k: Int, wStride: Int, c: UnsafeMutablePointer<Float>, start: Start, column: Int) {
            (self.a, self.w, self.k, self.wStride, self.c, self.start, self.column) = (a, w, k, wStride, c, start, column)
        }

        @inlinable @inline(__always)
        func callAsFunction<let N: Int>(_ accumulators: InlineArray<N, Vector>.Type) {
            MatrixMultiply.rowPass(accumulators, a, w, k: k, wStride: wStride, c, start: start, column: column)
        }
    }

    /// `Accumulators` is only a size: an InlineArray of N vectors that the
    /// compiler keeps in N registers once the loops over it are unrolled.
    /// Where twice N fits ``MultiplyAdd/accumulatorRegisters`` (a Dense
    /// head, the shipped LSTM's 8 vectors on AVX-512), the two parts of the
    /// sum run side by side: two chains of k/2 instead of one of k.
    @inlinable @inline(__always)
    static func rowPass<let N: Int>(
        _ accumulators: InlineArray<N, Vector>.Type, _ a: UnsafePointer<Float>, _ w: UnsafePointer<Float>, k: Int,
        wStride: Int, _ c: UnsafeMutablePointer<Float>, start: Start, column: Int
    ) {
        let half = secondHalf(k: k)
        guard half < k, 2 * N * (16 / M.registerLanes) <= M.accumulatorRegisters else {
            inOrder(k: k, start: start) { range, part in rowChain(accumulators, a, w, range, wStride: wStride, c, part, column: column) }
            return
        }
        var acc = InlineArray<N, Vector>(repeating: Vector())
        var later = InlineArray<N, Vector>(repeating: Vector())
        for v in 0..<N { acc[v] = initial(c + 16 &* v, start, column: column &+ 16 &* v) }
        var row = w
        var laterRow = w + half &* wStride
        for i in 0..<half {
            let x = Vector(repeating: a[i])
            let y = Vector(repeating: a[half &+ i])
            for v in 0..<N {
                acc[v] = M.adding(acc[v], x, load(row + 16 &* v))
                later[v] = M.adding(later[v], y, load(laterRow + 16 &* v))
            }
            row += wStride
            laterRow += wStride
        }
        if k &- half > half {
            let y = Vector(repeating: a[k &- 1])
            for v in 0..<N { later[v] = M.adding(later[v], y, load(laterRow + 16 &* v)) }
        }
        for v in 0..<N { store(acc[v] + later[v], c + 16 &* v) }
    }

    /// One part of one row's sum, one chain per accumulator.
    @inlinable @inline(__always)
    static func rowChain<let N: Int>(
        _ accumulators: InlineArray<N, Vector>.Type, _ a: UnsafePointer<Float>, _ w: UnsafePointer<Float>, _ range: Range<Int>,
        wStride: Int, _ c: UnsafeMutablePointer<Float>, _ part: Part, column: Int
    ) {
        var acc = InlineArray<N, Vector>(repeating: Vector())
        for v in 0..<N { acc[v] = initial(c + 16 &* v, part, column: column &+ 16 &* v) }
        var row = w + range.lowerBound &* wStride
        for i in range {
            let x = Vector(repeating: a[i])
            for v in 0..<N { acc[v] = M.adding(acc[v], x, load(row + 16 &* v)) }
            row += wStride
        }
        for v in 0..<N { finish(acc[v], c + 16 &* v, part) }
    }

    @inlinable @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> Vector { SIMDMemory.load(p) }

    @inlinable @inline(__always)
    static func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>) { SIMDMemory.store(v, p) }

    // MARK: Tiles: several rows, one part of k each call

    /// Four rows × 16 columns, one part of k: 4 accumulators (16 of NEON's registers).
    @inlinable @inline(__always)
    static func tile4x16(
        _ a: UnsafePointer<Float>, lda: Int, _ w: UnsafePointer<Float>, _ range: Range<Int>, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int, _ part: Part, column: Int
    ) {
        var acc0 = initial(c, part, column: column)
        var acc1 = initial(c + ldc, part, column: column)
        var acc2 = initial(c + 2 * ldc, part, column: column)
        var acc3 = initial(c + 3 * ldc, part, column: column)
        for i in range {
            let weights = load(w + i * wStride)
            acc0 = M.adding(acc0, Vector(repeating: a[i]), weights)
            acc1 = M.adding(acc1, Vector(repeating: a[lda + i]), weights)
            acc2 = M.adding(acc2, Vector(repeating: a[2 * lda + i]), weights)
            acc3 = M.adding(acc3, Vector(repeating: a[3 * lda + i]), weights)
        }
        finish(acc0, c, part)
        finish(acc1, c + ldc, part)
        finish(acc2, c + 2 * ldc, part)
        finish(acc3, c + 3 * ldc, part)
    }

    /// Four rows × 16 columns with the two parts of k side by side (8
    /// chains, as two FMA pipes of 4 cycles' latency need): the columns
    /// AVX-512's 4 × 64 tiles leave, and the whole product of a layer of 16
    /// or 32 filters or units.
    @inlinable @inline(__always)
    static func tile4x16BothParts(
        _ a: UnsafePointer<Float>, lda: Int, _ w: UnsafePointer<Float>, k: Int, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int, start: Start, column: Int
    ) {
        let half = secondHalf(k: k)
        guard half < k else {
            tile4x16(a, lda: lda, w, 0..<k, wStride: wStride, c, ldc: ldc, .first(start), column: column)
            return
        }
        var acc0 = initial(c, start, column: column)
        var acc1 = initial(c + ldc, start, column: column)
        var acc2 = initial(c + 2 * ldc, start, column: column)
        var acc3 = initial(c + 3 * ldc, start, column: column)
        var later0 = Vector()
        var later1 = Vector()
        var later2 = Vector()
        var later3 = Vector()
        for i in 0..<half {
            let weights = load(w + i * wStride)
            acc0 = M.adding(acc0, Vector(repeating: a[i]), weights)
            acc1 = M.adding(acc1, Vector(repeating: a[lda + i]), weights)
            acc2 = M.adding(acc2, Vector(repeating: a[2 * lda + i]), weights)
            acc3 = M.adding(acc3, Vector(repeating: a[3 * lda + i]), weights)
            let j = half + i
            let laterWeights = load(w + j * wStride)
            later0 = M.adding(later0, Vector(repeating: a[j]), laterWeights)
            later1 = M.adding(later1, Vector(repeating: a[lda + j]), laterWeights)
            later2 = M.adding(later2, Vector(repeating: a[2 * lda + j]), laterWeights)
            later3 = M.adding(later3, Vector(repeating: a[3 * lda + j]), laterWeights)
        }
        if k - half > half {
            let j = k - 1
            let laterWeights = load(w + j * wStride)
            later0 = M.adding(later0, Vector(repeating: a[j]), laterWeights)
            later1 = M.adding(later1, Vector(repeating: a[lda + j]), laterWeights)
            later2 = M.adding(later2, Vector(repeating: a[2 * lda + j]), laterWeights)
            later3 = M.adding(later3, Vector(repeating: a[3 * lda + j]), laterWeights)
        }
        store(acc0 + later0, c)
        store(acc1 + later1, c + ldc)
        store(acc2 + later2, c + 2 * ldc)
        store(acc3 + later3, c + 3 * ldc)
    }

    /// Two rows × 16 columns: 2 accumulators (8 SSE registers), 1 weight
    /// vector (4) and a broadcast fit the 16 registers; each weight load
    /// serves both rows.
    @inlinable @inline(__always)
    static func tile2x16(
        _ a: UnsafePointer<Float>, lda: Int, _ w: UnsafePointer<Float>, _ range: Range<Int>, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int, _ part: Part, column: Int
    ) {
        var acc0 = initial(c, part, column: column)
        var acc1 = initial(c + ldc, part, column: column)
        for i in range {
            let weights = load(w + i * wStride)
            acc0 = M.adding(acc0, Vector(repeating: a[i]), weights)
            acc1 = M.adding(acc1, Vector(repeating: a[lda + i]), weights)
        }
        finish(acc0, c, part)
        finish(acc1, c + ldc, part)
    }

    /// Two rows × 32 columns: 4 accumulators (8 AVX2 registers), 2 weight
    /// vectors and 2 broadcasts fit the 16 registers.
    @inlinable @inline(__always)
    static func tile2x32(
        _ a: UnsafePointer<Float>, lda: Int, _ w: UnsafePointer<Float>, _ range: Range<Int>, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int, _ part: Part, column: Int
    ) {
        var acc00 = initial(c, part, column: column)
        var acc01 = initial(c + 16, part, column: column + 16)
        var acc10 = initial(c + ldc, part, column: column)
        var acc11 = initial(c + ldc + 16, part, column: column + 16)
        for i in range {
            let row = w + i * wStride
            let w0 = load(row)
            let w1 = load(row + 16)
            let x0 = Vector(repeating: a[i])
            acc00 = M.adding(acc00, x0, w0)
            acc01 = M.adding(acc01, x0, w1)
            let x1 = Vector(repeating: a[lda + i])
            acc10 = M.adding(acc10, x1, w0)
            acc11 = M.adding(acc11, x1, w1)
        }
        finish(acc00, c, part)
        finish(acc01, c + 16, part)
        finish(acc10, c + ldc, part)
        finish(acc11, c + ldc + 16, part)
    }

    /// Four rows × 64 columns: 16 accumulators, half of AVX-512's registers.
    @inlinable @inline(__always)
    static func tile4x64(
        _ a: UnsafePointer<Float>, lda: Int, _ w: UnsafePointer<Float>, _ range: Range<Int>, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int, _ part: Part, column: Int
    ) {
        var acc00 = initial(c, part, column: column)
        var acc01 = initial(c + 16, part, column: column + 16)
        var acc02 = initial(c + 32, part, column: column + 32)
        var acc03 = initial(c + 48, part, column: column + 48)
        var acc10 = initial(c + ldc, part, column: column)
        var acc11 = initial(c + ldc + 16, part, column: column + 16)
        var acc12 = initial(c + ldc + 32, part, column: column + 32)
        var acc13 = initial(c + ldc + 48, part, column: column + 48)
        var acc20 = initial(c + 2 * ldc, part, column: column)
        var acc21 = initial(c + 2 * ldc + 16, part, column: column + 16)
        var acc22 = initial(c + 2 * ldc + 32, part, column: column + 32)
        var acc23 = initial(c + 2 * ldc + 48, part, column: column + 48)
        var acc30 = initial(c + 3 * ldc, part, column: column)
        var acc31 = initial(c + 3 * ldc + 16, part, column: column + 16)
        var acc32 = initial(c + 3 * ldc + 32, part, column: column + 32)
        var acc33 = initial(c + 3 * ldc + 48, part, column: column + 48)
        for i in range {
            let row = w + i * wStride
            let w0 = load(row)
            let w1 = load(row + 16)
            let w2 = load(row + 32)
            let w3 = load(row + 48)
            let x0 = Vector(repeating: a[i])
            acc00 = M.adding(acc00, x0, w0)
            acc01 = M.adding(acc01, x0, w1)
            acc02 = M.adding(acc02, x0, w2)
            acc03 = M.adding(acc03, x0, w3)
            let x1 = Vector(repeating: a[lda + i])
            acc10 = M.adding(acc10, x1, w0)
            acc11 = M.adding(acc11, x1, w1)
            acc12 = M.adding(acc12, x1, w2)
            acc13 = M.adding(acc13, x1, w3)
            let x2 = Vector(repeating: a[2 * lda + i])
            acc20 = M.adding(acc20, x2, w0)
            acc21 = M.adding(acc21, x2, w1)
            acc22 = M.adding(acc22, x2, w2)
            acc23 = M.adding(acc23, x2, w3)
            let x3 = Vector(repeating: a[3 * lda + i])
            acc30 = M.adding(acc30, x3, w0)
            acc31 = M.adding(acc31, x3, w1)
            acc32 = M.adding(acc32, x3, w2)
            acc33 = M.adding(acc33, x3, w3)
        }
        finish(acc00, c, part)
        finish(acc01, c + 16, part)
        finish(acc02, c + 32, part)
        finish(acc03, c + 48, part)
        finish(acc10, c + ldc, part)
        finish(acc11, c + ldc + 16, part)
        finish(acc12, c + ldc + 32, part)
        finish(acc13, c + ldc + 48, part)
        finish(acc20, c + 2 * ldc, part)
        finish(acc21, c + 2 * ldc + 16, part)
        finish(acc22, c + 2 * ldc + 32, part)
        finish(acc23, c + 2 * ldc + 48, part)
        finish(acc30, c + 3 * ldc, part)
        finish(acc31, c + 3 * ldc + 16, part)
        finish(acc32, c + 3 * ldc + 32, part)
        finish(acc33, c + 3 * ldc + 48, part)
    }
}

/// Where a matrix product starts its sums.
public enum MatrixStart {
    /// C = A·W
    case zero
    /// C = bias + A·W (`bias` has `W.stride` floats)
    case bias(UnsafePointer<Float>)
    /// C += A·W
    case accumulate
}

/// Whole-vector loads and stores at any float address.
public enum SIMDMemory {
    @_transparent
    public static func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
    }

    @_transparent
    public static func store(_ v: SIMD16<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD16<Float>.self)
    }

    /// `count` floats, whole vectors then the rest: a memcpy call per
    /// recurrent step would cost more than the copy.
    @inlinable @inline(__always)
    public static func copy(_ source: UnsafePointer<Float>, count: Int, to destination: UnsafeMutablePointer<Float>) {
        var j = 0
        while j + 16 <= count {
            store(load(source + j), destination + j)
            j += 16
        }
        while j < count {
            (destination + j).initialize(to: source[j])
            j += 1
        }
    }

    @_transparent
    public static func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    @_transparent
    public static func store4(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
    }
}
