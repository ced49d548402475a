import HeadsUpKernels

/// The state a recurrent layer carries from one time step to the next in
/// a stream: one example's buffers, as the batch path lays them out.
final class RecurrentState {
    private let scratch = Scratch()
    let buffers: RecurrentBuffers
    /// This step's x·W + b row (with slack for whole-vector gate reads).
    let projected: UnsafeMutablePointer<Float>

    init(layer: RecurrentLayer) {
        buffers = layer.makeBuffers(batch: 1, scratch: scratch)
        projected = scratch.zeros(layer.kernel.stride + 4 * PackedMatrix.lanes).pointer
    }
}

extension RecurrentLayer {
    func makeState() -> RecurrentState { RecurrentState(layer: self) }

    /// Advances one time step: `input` holds `inputWidth` values; returns
    /// the new hidden state (`units` values). The batch path's `advance`
    /// on one example, so streaming a sequence gives the batch result.
    func step(_ input: UnsafePointer<Float>, state: RecurrentState) -> [Float] {
        kernels.multiply(input, lda: inputWidth, rows: 1, kernel, into: state.projected, ldc: kernel.stride, start: .bias(inputBias.pointer))
        kernels.advance(core, state.projected, rowStride: kernel.stride, batch: 1, state.buffers)
        return Array(UnsafeBufferPointer(start: state.buffers.hidden, count: units))
    }
}
