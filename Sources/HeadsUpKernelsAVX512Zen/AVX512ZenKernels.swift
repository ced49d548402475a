import HeadsUpKernels

#if arch(x86_64)
    /// The AVX-512 kernels scheduled for AMD Zen 4 and Zen 5: this module alone
    /// is built with `-target-cpu znver4` (Package.swift). The instructions are
    /// the avx512 level's; LLVM's Intel tunings (skylake-avx512 and later)
    /// prefer 256-bit work and schedule for Intel's ports, which measured 11 %
    /// slower on a Zen 5 (docs/notes/2026-11-26-lean-daemon-and-zen.md). Run
    /// them only on an AMD CPU with the AVX-512 extensions Zen 4 has
    /// (KernelSelection.swift checks).
    public func avx512ZenKernels() -> KernelTable {
        typealias M = AVX512ZenMultiplyAdd
        return KernelTable(
            level: .avx512Zen,
            multiply: { MatrixMultiply<M>.multiply($0, lda: $1, rows: $2, $3, wRows: $4, wStride: $5, into: $6, ldc: $7, start: $8) },
            advance: { RecurrentKernels<M>.advance($0, $1, rowStride: $2, batch: $3, $4) },
            window: { RecurrentKernels<M>.lstmWindow($0, $1, $2, output: $3) },
            peak: { PeakThroughput<M>.run(iterations: $0, lanes: 16) })
    }

    /// This level's multiply-add, a type of this module's own so that the
    /// kernels' specializations made here are this module's (KernelTable.swift).
    public enum AVX512ZenMultiplyAdd: MultiplyAdd {
        @_transparent
        public static func adding<V: SIMD>(_ c: V, _ a: V, _ b: V) -> V where V.Scalar == Float {
            FusedMultiplyAdd.adding(c, a, b)
        }
    }
#endif
