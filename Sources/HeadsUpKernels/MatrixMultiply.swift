/// Code to run with a number of accumulator vectors known at compile time
/// (``MatrixMultiply/withAccumulators(vectors:_:)`` picks it): Swift has no
/// generic closures, so the code is a value of a type with a generic method.
public protocol AccumulatorCountSpecialized {
    func callAsFunction<let N: Int>(_ accumulators: InlineArray<N, SIMD16<Float>>.Type)
}

/// The engine's one matrix kernel: C = A·W (+ C, or + bias), with A
/// row-major [m × k] and W a ``PackedMatrix``. Every dense product goes
/// through here: a single window is m = 1 (a matrix–vector product), a batch
/// stacks windows as rows so each weight load serves four of them.
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
        if M.registerLanes <= 4 {
            // 16 registers of 4 floats (SSE, NEON's 32 of them are used the same way): two rows of
            // one 16-wide column take 8 accumulators, the weights 4 and a broadcast 1.
            while row + 2 <= m {
                var column = 0
                while column < wStride {
                    tile2x16(
                        a + row * lda, lda: lda, w + column, k: k, wStride: wStride, c + row * ldc + column, ldc: ldc, start: start, column: column)
                    column += 16
                }
                row += 2
            }
        } else if M.registerLanes < 16 {
            // 16 registers of 8 floats: a 4 × 64 tile's accumulators alone would need 32.
            while row + 2 <= m {
                var column = 0
                while column + 32 <= wStride {
                    tile2x32(
                        a + row * lda, lda: lda, w + column, k: k, wStride: wStride, c + row * ldc + column, ldc: ldc, start: start, column: column)
                    column += 32
                }
                while column < wStride {
                    rowPass(vectors: 1, a + row * lda, w + column, k: k, wStride: wStride, c + row * ldc + column, start: start, column: column)
                    rowPass(
                        vectors: 1, a + (row + 1) * lda, w + column, k: k, wStride: wStride, c + (row + 1) * ldc + column, start: start,
                        column: column)
                    column += 16
                }
                row += 2
            }
        }
        while row + 4 <= m {
            var column = 0
            while column + 64 <= wStride {
                tile4x64(a + row * lda, lda: lda, w + column, k: k, wStride: wStride, c + row * ldc + column, ldc: ldc, start: start, column: column)
                column += 64
            }
            while column < wStride {
                tile4x16(a + row * lda, lda: lda, w + column, k: k, wStride: wStride, c + row * ldc + column, ldc: ldc, start: start, column: column)
                column += 16
            }
            row += 4
        }
        while row < m {
            rowPasses(vectors: wStride / 16, a + row * lda, w, k: k, wStride: wStride, c + row * ldc, start: start)
            row += 1
        }
    }

    /// Accumulator vectors (16 floats) one pass over k keeps in registers:
    /// 16 of AVX-512's 32; 12 registers' worth on levels with 16 narrower
    /// ones (6 vectors of AVX2, 3 of SSE or NEON), the rest left for the
    /// weights and the broadcast. More would spill on every multiply-add.
    @inlinable
    static var vectorsPerPass: Int { M.registerLanes >= 16 ? 16 : 12 * M.registerLanes / 16 }

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
    /// one broadcast of a[i] feeds every column, and each accumulator's chain
    /// is only k long. A single window's recurrent step (h·U, 13 vectors for
    /// 50 LSTM units) is this product, so it sets the pace of the recurrence.
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
    /// Narrow products (a Dense head: 1–8 vectors) would otherwise be one
    /// chain of k dependent multiply-adds per register, so they split k into
    /// interleaved partial sums, four or two, as many as the registers hold
    /// (``partialSums``).
    @inlinable @inline(__always)
    static func rowPass<let N: Int>(
        _ accumulators: InlineArray<N, Vector>.Type, _ a: UnsafePointer<Float>, _ w: UnsafePointer<Float>, k: Int,
        wStride: Int, _ c: UnsafeMutablePointer<Float>, start: Start, column: Int
    ) {
        var acc = InlineArray<N, Vector>(repeating: Vector())
        for v in 0..<N { acc[v] = initial(c + 16 &* v, start, column: column &+ 16 &* v) }
        var row = w
        var i = 0
        let sums = partialSums(vectors: N)
        if sums >= 2 {
            var acc1 = InlineArray<N, Vector>(repeating: Vector())
            if sums >= 4 {
                var acc2 = InlineArray<N, Vector>(repeating: Vector())
                var acc3 = InlineArray<N, Vector>(repeating: Vector())
                while i &+ 4 <= k {
                    let x0 = Vector(repeating: a[i])
                    let x1 = Vector(repeating: a[i &+ 1])
                    let x2 = Vector(repeating: a[i &+ 2])
                    let x3 = Vector(repeating: a[i &+ 3])
                    let row1 = row + wStride
                    let row2 = row + 2 &* wStride
                    let row3 = row + 3 &* wStride
                    for v in 0..<N {
                        acc[v] = M.adding(acc[v], x0, load(row + 16 &* v))
                        acc1[v] = M.adding(acc1[v], x1, load(row1 + 16 &* v))
                        acc2[v] = M.adding(acc2[v], x2, load(row2 + 16 &* v))
                        acc3[v] = M.adding(acc3[v], x3, load(row3 + 16 &* v))
                    }
                    row += 4 &* wStride
                    i &+= 4
                }
                for v in 0..<N { acc1[v] += acc2[v] + acc3[v] }
            }
            while i &+ 2 <= k {
                let x0 = Vector(repeating: a[i])
                let x1 = Vector(repeating: a[i &+ 1])
                let row1 = row + wStride
                for v in 0..<N {
                    acc[v] = M.adding(acc[v], x0, load(row + 16 &* v))
                    acc1[v] = M.adding(acc1[v], x1, load(row1 + 16 &* v))
                }
                row += 2 &* wStride
                i &+= 2
            }
            for v in 0..<N { acc[v] += acc1[v] }
        }
        while i < k {
            let x = Vector(repeating: a[i])
            for v in 0..<N { acc[v] = M.adding(acc[v], x, load(row + 16 &* v)) }
            row += wStride
            i &+= 1
        }
        for v in 0..<N { store(acc[v], c + 16 &* v) }
    }

    /// Partial sums over k for a pass of `vectors` accumulators: 4, 2 or 1,
    /// the most whose registers fit 16 of AVX-512's, or 12 of the narrower
    /// levels' (a SIMD16 takes 2 AVX2 or 4 SSE registers, each its own chain).
    @inlinable @inline(__always)
    static func partialSums(vectors: Int) -> Int {
        let registers = vectors * (16 / M.registerLanes)
        let budget = M.registerLanes >= 16 ? 16 : 12
        return 4 * registers <= budget ? 4 : 2 * registers <= budget ? 2 : 1
    }

    @inlinable @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> Vector { SIMDMemory.load(p) }

    @inlinable @inline(__always)
    static func store(_ v: Vector, _ p: UnsafeMutablePointer<Float>) { SIMDMemory.store(v, p) }

    @inlinable @inline(__always)
    static func initial(_ c: UnsafeMutablePointer<Float>, _ start: Start, column: Int) -> Vector {
        switch start {
        case .zero: return Vector()
        case .bias(let bias): return load(bias + column)
        case .accumulate: return load(c)
        }
    }

    @inlinable @inline(__always)
    static func tile4x16(
        _ a: UnsafePointer<Float>, lda: Int, _ w: UnsafePointer<Float>, k: Int, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int, start: Start, column: Int
    ) {
        var acc0 = initial(c, start, column: column)
        var acc1 = initial(c + ldc, start, column: column)
        var acc2 = initial(c + 2 * ldc, start, column: column)
        var acc3 = initial(c + 3 * ldc, start, column: column)
        // Four chains of k dependent multiply-adds would wait on the FMA
        // latency; odd k go to four more partial sums.
        var odd0 = Vector()
        var odd1 = Vector()
        var odd2 = Vector()
        var odd3 = Vector()
        var i = 0
        while i + 2 <= k {
            let even = load(w + i * wStride)
            let odd = load(w + (i + 1) * wStride)
            acc0 = M.adding(acc0, Vector(repeating: a[i]), even)
            acc1 = M.adding(acc1, Vector(repeating: a[lda + i]), even)
            acc2 = M.adding(acc2, Vector(repeating: a[2 * lda + i]), even)
            acc3 = M.adding(acc3, Vector(repeating: a[3 * lda + i]), even)
            odd0 = M.adding(odd0, Vector(repeating: a[i + 1]), odd)
            odd1 = M.adding(odd1, Vector(repeating: a[lda + i + 1]), odd)
            odd2 = M.adding(odd2, Vector(repeating: a[2 * lda + i + 1]), odd)
            odd3 = M.adding(odd3, Vector(repeating: a[3 * lda + i + 1]), odd)
            i += 2
        }
        if i < k {
            let weights = load(w + i * wStride)
            acc0 = M.adding(acc0, Vector(repeating: a[i]), weights)
            acc1 = M.adding(acc1, Vector(repeating: a[lda + i]), weights)
            acc2 = M.adding(acc2, Vector(repeating: a[2 * lda + i]), weights)
            acc3 = M.adding(acc3, Vector(repeating: a[3 * lda + i]), weights)
        }
        acc0 += odd0
        acc1 += odd1
        acc2 += odd2
        acc3 += odd3
        store(acc0, c)
        store(acc1, c + ldc)
        store(acc2, c + 2 * ldc)
        store(acc3, c + 3 * ldc)
    }

    /// Two rows × 16 columns: 2 accumulators (8 SSE registers), 1 weight
    /// vector (4) and a broadcast fit the 16 registers; each weight load
    /// serves both rows.
    @inlinable @inline(__always)
    static func tile2x16(
        _ a: UnsafePointer<Float>, lda: Int, _ w: UnsafePointer<Float>, k: Int, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int, start: Start, column: Int
    ) {
        var acc0 = initial(c, start, column: column)
        var acc1 = initial(c + ldc, start, column: column)
        for i in 0..<k {
            let weights = load(w + i * wStride)
            acc0 = M.adding(acc0, Vector(repeating: a[i]), weights)
            acc1 = M.adding(acc1, Vector(repeating: a[lda + i]), weights)
        }
        store(acc0, c)
        store(acc1, c + ldc)
    }

    /// Two rows × 32 columns: 4 accumulators (8 AVX2 registers), 2 weight
    /// vectors and 2 broadcasts fit the 16 registers.
    @inlinable @inline(__always)
    static func tile2x32(
        _ a: UnsafePointer<Float>, lda: Int, _ w: UnsafePointer<Float>, k: Int, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int, start: Start, column: Int
    ) {
        var acc00 = initial(c, start, column: column)
        var acc01 = initial(c + 16, start, column: column + 16)
        var acc10 = initial(c + ldc, start, column: column)
        var acc11 = initial(c + ldc + 16, start, column: column + 16)
        for i in 0..<k {
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
        store(acc00, c)
        store(acc01, c + 16)
        store(acc10, c + ldc)
        store(acc11, c + ldc + 16)
    }

    @inlinable @inline(__always)
    static func tile4x64(
        _ a: UnsafePointer<Float>, lda: Int, _ w: UnsafePointer<Float>, k: Int, wStride: Int,
        _ c: UnsafeMutablePointer<Float>, ldc: Int, start: Start, column: Int
    ) {
        var acc00 = initial(c, start, column: column)
        var acc01 = initial(c + 16, start, column: column + 16)
        var acc02 = initial(c + 32, start, column: column + 32)
        var acc03 = initial(c + 48, start, column: column + 48)
        var acc10 = initial(c + ldc, start, column: column)
        var acc11 = initial(c + ldc + 16, start, column: column + 16)
        var acc12 = initial(c + ldc + 32, start, column: column + 32)
        var acc13 = initial(c + ldc + 48, start, column: column + 48)
        var acc20 = initial(c + 2 * ldc, start, column: column)
        var acc21 = initial(c + 2 * ldc + 16, start, column: column + 16)
        var acc22 = initial(c + 2 * ldc + 32, start, column: column + 32)
        var acc23 = initial(c + 2 * ldc + 48, start, column: column + 48)
        var acc30 = initial(c + 3 * ldc, start, column: column)
        var acc31 = initial(c + 3 * ldc + 16, start, column: column + 16)
        var acc32 = initial(c + 3 * ldc + 32, start, column: column + 32)
        var acc33 = initial(c + 3 * ldc + 48, start, column: column + 48)
        for i in 0..<k {
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
        store(acc00, c)
        store(acc01, c + 16)
        store(acc02, c + 32)
        store(acc03, c + 48)
        store(acc10, c + ldc)
        store(acc11, c + ldc + 16)
        store(acc12, c + ldc + 32)
        store(acc13, c + ldc + 48)
        store(acc20, c + 2 * ldc)
        store(acc21, c + 2 * ldc + 16)
        store(acc22, c + 2 * ldc + 32)
        store(acc23, c + 2 * ldc + 48)
        store(acc30, c + 3 * ldc)
        store(acc31, c + 3 * ldc + 16)
        store(acc32, c + 3 * ldc + 32)
        store(acc33, c + 3 * ldc + 48)
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
