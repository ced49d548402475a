/// The SimpleRNN's time step, fast. The math is in
/// Reference/ReferenceSimpleRNN.swift; what follows is layout and speed.
extension RecurrentLayer {
    /// One time step of `batch` examples: h = act(x·W + b + h·U).
    func simpleAdvance(_ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers) {
        MatrixMultiply.multiply(
            buffers.hidden, lda: buffers.hiddenStride, rows: batch, recurrent.values.pointer, wRows: units, wStride: recurrent.stride,
            into: gates, ldc: rowStride, start: .accumulate)
        for example in 0..<batch { simpleStep(gates + example * rowStride, buffers.hidden + example * buffers.hiddenStride) }
    }

    @inline(__always)
    func simpleStep(_ preactivation: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>) {
        var j = 0
        while j < units {
            MatrixMultiply.store(VectorMath.apply(activation, MatrixMultiply.load(preactivation + j)), h + j)
            j += 16
        }
    }
}
