/// The GRU's time step, fast, for both of Keras's variants. The math is in
/// Reference/ReferenceGRU.swift; what follows is layout and speed.
extension RecurrentLayer {
    /// reset_after = true: h·U (with its own bias) apart, then the gates.
    func gruResetAfterAdvance(_ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers) {
        MatrixMultiply.multiply(
            buffers.hidden, lda: buffers.hiddenStride, rows: batch, recurrent.values.pointer, wRows: units, wStride: recurrent.stride,
            into: buffers.recurrentOut, ldc: recurrent.stride, start: .bias(recurrentBias.pointer))
        for example in 0..<batch {
            gruResetAfter(
                gates + example * rowStride, buffers.recurrentOut + example * recurrent.stride, buffers.hidden + example * buffers.hiddenStride)
        }
    }

    /// reset_after = false: h·U for z and r, then r∘h, its product with U_h, and the update.
    func gruResetBeforeAdvance(_ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers) {
        let hiddenStride = buffers.hiddenStride
        MatrixMultiply.multiply(
            buffers.hidden, lda: hiddenStride, rows: batch, recurrent.values.pointer, wRows: units, wStride: recurrent.stride,
            into: buffers.recurrentOut, ldc: recurrent.stride, start: .zero)
        for example in 0..<batch {
            gruResetGate(
                gates + example * rowStride, buffers.recurrentOut + example * recurrent.stride, buffers.hidden + example * hiddenStride,
                buffers.gated + example * hiddenStride)
        }
        let candidateWeights = candidateRecurrent!
        MatrixMultiply.multiply(
            buffers.gated, lda: hiddenStride, rows: batch, candidateWeights.values.pointer, wRows: units, wStride: candidateWeights.stride,
            into: buffers.candidate, ldc: hiddenStride, start: .zero)
        for example in 0..<batch {
            gruResetBefore(
                gates + example * rowStride, buffers.recurrentOut + example * recurrent.stride, buffers.candidate + example * hiddenStride,
                buffers.hidden + example * hiddenStride)
        }
    }

    /// GRU, reset_after = true: hh = act(x·W_h + b_h + r ∘ (h·U_h + b'_h)).
    @inline(__always)
    func gruResetAfter(_ x: UnsafeMutablePointer<Float>, _ recurrent: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>) {
        let u = units
        var j = 0
        while j < u {
            let z = VectorMath.apply(recurrentActivation, MatrixMultiply.load(x + j) + MatrixMultiply.load(recurrent + j))
            let r = VectorMath.apply(recurrentActivation, MatrixMultiply.load(x + u + j) + MatrixMultiply.load(recurrent + u + j))
            let hh = VectorMath.apply(activation, MatrixMultiply.load(x + 2 * u + j) + r * MatrixMultiply.load(recurrent + 2 * u + j))
            let previous = MatrixMultiply.load(h + j)
            MatrixMultiply.store(z * previous + (1 - z) * hh, h + j)
            j += 16
        }
    }

    /// GRU, reset_after = false, first half: r ∘ h, the input of the candidate's product.
    @inline(__always)
    func gruResetGate(
        _ x: UnsafeMutablePointer<Float>, _ recurrent: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>,
        _ gated: UnsafeMutablePointer<Float>
    ) {
        let u = units
        var j = 0
        while j < u {
            let r = VectorMath.apply(recurrentActivation, MatrixMultiply.load(x + u + j) + MatrixMultiply.load(recurrent + u + j))
            MatrixMultiply.store(r * MatrixMultiply.load(h + j), gated + j)
            j += 16
        }
    }

    /// GRU, reset_after = false, second half: hh = act(x·W_h + b_h + (r∘h)·U_h).
    @inline(__always)
    func gruResetBefore(
        _ x: UnsafeMutablePointer<Float>, _ recurrent: UnsafeMutablePointer<Float>, _ candidate: UnsafeMutablePointer<Float>,
        _ h: UnsafeMutablePointer<Float>
    ) {
        let u = units
        var j = 0
        while j < u {
            let z = VectorMath.apply(recurrentActivation, MatrixMultiply.load(x + j) + MatrixMultiply.load(recurrent + j))
            let hh = VectorMath.apply(activation, MatrixMultiply.load(x + 2 * u + j) + MatrixMultiply.load(candidate + j))
            let previous = MatrixMultiply.load(h + j)
            MatrixMultiply.store(z * previous + (1 - z) * hh, h + j)
            j += 16
        }
    }
}
