/// The engine's kernels compiled for one CPU level: what a model's layers
/// call for every matrix product and recurrent step. ONNX Runtime's MLAS
/// keeps a table like this per instruction set and picks one by cpuid;
/// here the math is written once (generic over ``MultiplyAdd``), and each
/// level module (HeadsUpKernelsAVX512, …AVX2, …Baseline) fills a table with
/// closures over its own ``MultiplyAdd`` type, compiled with its own
/// `-target-cpu`; the model picks a table when it loads.
///
/// Two rules keep each level's code its own:
/// - the closures are written in the level module, not in a generic
///   helper here: a closure inside an inlinable generic function stays
///   this module's unspecialized code;
/// - each level's ``MultiplyAdd`` type is declared in the level module, so
///   every specialization it makes has a name of its own. Specializations
///   are emitted with shared linkage, and two modules' copies of one name
///   would be merged by the linker whatever flags compiled them.
///
/// Calling through a table costs an indirect call per product or per
/// window, not per multiply-add.
public struct KernelTable: Sendable {
    public typealias Multiply =
        @Sendable (
            _ a: UnsafePointer<Float>, _ lda: Int, _ rows: Int, _ w: UnsafePointer<Float>, _ wRows: Int, _ wStride: Int,
            _ c: UnsafeMutablePointer<Float>, _ ldc: Int, _ start: MatrixStart
        ) -> Void
    public typealias Advance =
        @Sendable (
            _ core: RecurrentCore, _ gates: UnsafeMutablePointer<Float>, _ rowStride: Int, _ batch: Int, _ buffers: RecurrentBuffers
        ) -> Void
    public typealias Window =
        @Sendable (
            _ core: RecurrentCore, _ projected: UnsafeMutablePointer<Float>, _ buffers: RecurrentBuffers, _ output: UnsafeMutablePointer<Float>
        ) -> Void
    public typealias Peak = @Sendable (_ iterations: Int) -> (checksum: Float, multiplyAdds: Int)

    public let level: KernelLevel
    @usableFromInline let multiplyKernel: Multiply
    @usableFromInline let advanceKernel: Advance
    @usableFromInline let windowKernel: Window
    @usableFromInline let peakKernel: Peak

    public init(level: KernelLevel, multiply: @escaping Multiply, advance: @escaping Advance, window: @escaping Window, peak: @escaping Peak) {
        self.level = level
        multiplyKernel = multiply
        advanceKernel = advance
        windowKernel = window
        peakKernel = peak
    }

    /// C = A·W (+ C, or + bias): see ``MatrixMultiply``.
    @inlinable
    public func multiply(
        _ a: UnsafePointer<Float>, lda: Int, rows: Int, _ w: UnsafePointer<Float>, wRows: Int, wStride: Int,
        into c: UnsafeMutablePointer<Float>, ldc: Int, start: MatrixStart
    ) {
        multiplyKernel(a, lda, rows, w, wRows, wStride, c, ldc, start)
    }

    /// C = A·W (+ bias) with W a ``PackedMatrix``.
    @inlinable
    public func multiply(
        _ a: UnsafePointer<Float>, lda: Int, rows: Int, _ w: PackedMatrix, into c: UnsafeMutablePointer<Float>, ldc: Int, start: MatrixStart
    ) {
        multiplyKernel(a, lda, rows, w.values.pointer, w.rows, w.stride, c, ldc, start)
    }

    /// One time step of `batch` examples (``RecurrentKernels/advance(_:_:rowStride:batch:_:)``).
    @inlinable
    public func advance(_ core: RecurrentCore, _ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers) {
        advanceKernel(core, gates, rowStride, batch, buffers)
    }

    /// One example's whole LSTM window (``RecurrentKernels/lstmWindow(_:_:_:output:)``).
    @inlinable
    public func lstmWindow(
        _ core: RecurrentCore, _ projected: UnsafeMutablePointer<Float>, _ buffers: RecurrentBuffers, output: UnsafeMutablePointer<Float>
    ) {
        windowKernel(core, projected, buffers, output)
    }

    /// The level's multiply-add ceiling loop (``PeakThroughput``).
    @inlinable
    public func peak(iterations: Int) -> (checksum: Float, multiplyAdds: Int) {
        peakKernel(iterations)
    }
}
