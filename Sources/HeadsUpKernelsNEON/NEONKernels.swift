import HeadsUpKernels

#if arch(arm64)
    /// The kernels for AArch64's NEON (Advanced SIMD with FMA, which every
    /// AArch64 core has): 128-bit vectors like SSE's, but 32 of them, so
    /// the tiles are larger than the baseline's (4 × 16 products with 16
    /// accumulator registers, row passes of 6 vectors; MatrixMultiply.swift).
    public func neonKernels() -> KernelTable {
        typealias M = NEONMultiplyAdd
        return KernelTable(
            level: .neon,
            multiply: { MatrixMultiply<M>.multiply($0, lda: $1, rows: $2, $3, wRows: $4, wStride: $5, into: $6, ldc: $7, start: $8) },
            advance: { RecurrentKernels<M>.advance($0, $1, rowStride: $2, batch: $3, $4) },
            window: { RecurrentKernels<M>.lstmWindow($0, $1, $2, output: $3) },
            peak: { PeakThroughput<M>.run(iterations: $0, lanes: 4) })
    }

    /// This level's multiply-add, a type of this module's own so that the
    /// kernels' specializations made here are this module's (KernelTable.swift).
    public enum NEONMultiplyAdd: MultiplyAdd {
        @_transparent
        public static func adding<V: SIMD>(_ c: V, _ a: V, _ b: V) -> V where V.Scalar == Float {
            FusedMultiplyAdd.adding(c, a, b)
        }

        public static var registerLanes: Int { 4 }
        public static var accumulatorRegisters: Int { 24 }
    }
#endif
