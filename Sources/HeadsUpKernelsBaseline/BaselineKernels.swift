import HeadsUpKernels

/// The kernels compiled for the architecture's baseline (no CPU flags):
/// on x86-64, SSE2 with multiply and add apart; on aarch64, NEON with FMA.
public func baselineKernels() -> KernelTable {
    typealias M = BaselineLevelMultiplyAdd
    return KernelTable(
        level: .baseline,
        multiply: { MatrixMultiply<M>.multiply($0, lda: $1, rows: $2, $3, wRows: $4, wStride: $5, into: $6, ldc: $7, start: $8) },
        advance: { RecurrentKernels<M>.advance($0, $1, rowStride: $2, batch: $3, $4) },
        window: { RecurrentKernels<M>.lstmWindow($0, $1, $2, output: $3) },
        peak: { PeakThroughput<M>.run(iterations: $0, lanes: 4) })
}

/// This level's multiply-add, a type of this module's own so that the
/// kernels' specializations made here are this module's (KernelTable.swift).
public enum BaselineLevelMultiplyAdd: MultiplyAdd {
    @_transparent
    public static func adding<V: SIMD>(_ c: V, _ a: V, _ b: V) -> V where V.Scalar == Float {
        BaselineMultiplyAdd.adding(c, a, b)
    }

    public static var registerLanes: Int { 4 }
    public static var isFused: Bool { BaselineMultiplyAdd.isFused }
}
