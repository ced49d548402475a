import HeadsUpKernels

#if arch(x86_64)
    /// The kernels compiled for AVX-512: this module alone is built with
    /// `-target-cpu skylake-avx512` (Package.swift); run them only where the CPU
    /// has AVX-512 F/CD/BW/DQ/VL (KernelSelection.swift checks).
    public func avx512Kernels() -> KernelTable {
        typealias M = AVX512MultiplyAdd
        return KernelTable(
            level: .avx512,
            multiply: { MatrixMultiply<M>.multiply($0, lda: $1, rows: $2, $3, wRows: $4, wStride: $5, into: $6, ldc: $7, start: $8) },
            advance: { RecurrentKernels<M>.advance($0, $1, rowStride: $2, batch: $3, $4) },
            window: { RecurrentKernels<M>.lstmWindow($0, $1, $2, output: $3) },
            peak: { PeakThroughput<M>.run(iterations: $0, lanes: 16) })
    }

    /// This level's multiply-add, a type of this module's own so that the
    /// kernels' specializations made here are this module's (KernelTable.swift).
    public enum AVX512MultiplyAdd: MultiplyAdd {
        @_transparent
        public static func adding<V: SIMD>(_ c: V, _ a: V, _ b: V) -> V where V.Scalar == Float {
            FusedMultiplyAdd.adding(c, a, b)
        }
    }
#endif
