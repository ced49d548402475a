/// The LSTM's time step, fast. The math is in Reference/ReferenceLSTM.swift;
/// what follows is layout and speed: gates packed in ``LSTMGateLayout``'s
/// order, h·U added in place, the cell updated a vector of 16 units at a
/// time, and the units that do not fill a vector updated together in one
/// leftover block.
extension RecurrentLayer {
    /// One time step of `batch` examples (also the streaming scorer's step).
    func lstmAdvance(_ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers) {
        MatrixMultiply.multiply(
            buffers.hidden, lda: buffers.hiddenStride, rows: batch, recurrent.values.pointer, wRows: units, wStride: recurrent.stride,
            into: gates, ldc: rowStride, start: .accumulate)
        for example in 0..<batch {
            lstmGates(gates + example * rowStride, buffers.hidden + example * buffers.hiddenStride, buffers.cell + example * buffers.hiddenStride)
        }
    }

    /// A single example's whole window: one time loop specialized for h·U's vector count.
    func singleLSTMSteps(_ projected: UnsafeMutablePointer<Float>, _ buffers: RecurrentBuffers, output: UnsafeMutablePointer<Float>) {
        MatrixMultiply.withAccumulators(
            vectors: recurrent.stride / MatrixMultiply.Vector.scalarCount,
            SingleLSTMSteps(
                layer: self, projected: projected, hidden: buffers.hidden, state: buffers.cell, recurrent: recurrent.values.pointer,
                output: output))
    }

    /// One example's LSTM time loop with h·U's accumulators sized at
    /// compile time: a single window's steps then run in one function, not
    /// through ``MatrixMultiply/multiply`` and its dispatch on every step
    /// (about 0.5 µs a window of the seed model in `headsup model bench`).
    struct SingleLSTMSteps: AccumulatorCountSpecialized {
        let layer: RecurrentLayer
        let projected: UnsafeMutablePointer<Float>, hidden: UnsafeMutablePointer<Float>, state: UnsafeMutablePointer<Float>
        let recurrent: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>

        @inline(__always)
        func callAsFunction<let N: Int>(_ accumulators: InlineArray<N, MatrixMultiply.Vector>.Type) {
            layer.singleLSTMSteps(accumulators, projected, hidden, state, recurrent, output)
        }
    }

    /// Kept out of line: inlined into `forward`'s closures, the same loop
    /// ran slower.
    @inline(never)
    func singleLSTMSteps<let N: Int>(
        _ accumulators: InlineArray<N, MatrixMultiply.Vector>.Type, _ p: UnsafeMutablePointer<Float>,
        _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, _ u: UnsafePointer<Float>,
        _ o: UnsafeMutablePointer<Float>
    ) {
        let stride = kernel.stride
        for step in 0..<steps {
            let gates = p + (goBackwards ? steps - 1 - step : step) * stride
            MatrixMultiply.rowPass(accumulators, h, u, k: units, wStride: recurrent.stride, gates, start: .accumulate, column: 0)
            lstmGates(gates, h, c)
            if returnSequences { copyHidden(h, to: o + step * units) }
        }
    }

    /// One LSTM step's cell update for one example, from its gate row.
    @inline(__always)
    func lstmGates(_ gates: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>) {
        if standardActivations { standardLSTMGates(gates, h, c) } else { configuredLSTMGates(gates, h, c) }
    }

    /// Sigmoid gates and tanh, with the activations inlined. The function
    /// itself stays out of line: inlined into the time loop, its twenty-odd
    /// constants crowded h·U's accumulators out of the registers and the
    /// window got slower. Apart from the configured-activation path, its
    /// prologue stays small (0.2-0.4 µs a window in `headsup model bench`).
    /// Gates are in ``LSTMGateLayout``'s order.
    @inline(never)
    func standardLSTMGates(_ gates: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>) {
        let layout = lstmLayout!
        let full = layout.fullUnits
        var j = 0
        while j < full {
            let (cell, hidden) = VectorMath.lstmCell(
                input: MatrixMultiply.load(gates + j), forget: MatrixMultiply.load(gates + full + j),
                candidate: MatrixMultiply.load(gates + 2 * full + j), output: MatrixMultiply.load(gates + 3 * full + j),
                cell: MatrixMultiply.load(c + j))
            MatrixMultiply.store(cell, c + j)
            MatrixMultiply.store(hidden, h + j)
            j += 16
        }
        // The leftover block: every gate's activation in one pass over its vectors, then the units 4 at a time.
        let block = gates + layout.leftoverStart
        for (vector, activation) in leftoverActivations.enumerated() {
            MatrixMultiply.store(activation(MatrixMultiply.load(block + 16 * vector)), block + 16 * vector)
        }
        leftoverCells(block, h, c) { VectorMath.rationalTanh($0) }
    }

    /// The activations the config names (hard_sigmoid gates, relu, ...).
    @inline(never)
    func configuredLSTMGates(_ gates: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>) {
        let layout = lstmLayout!
        let full = layout.fullUnits
        var j = 0
        while j < full {
            let i = VectorMath.apply(recurrentActivation, MatrixMultiply.load(gates + j))
            let f = VectorMath.apply(recurrentActivation, MatrixMultiply.load(gates + full + j))
            let g = VectorMath.apply(activation, MatrixMultiply.load(gates + 2 * full + j))
            let o = VectorMath.apply(recurrentActivation, MatrixMultiply.load(gates + 3 * full + j))
            let cell = f * MatrixMultiply.load(c + j) + i * g
            MatrixMultiply.store(cell, c + j)
            MatrixMultiply.store(o * VectorMath.apply(activation, cell), h + j)
            j += 16
        }
        let block = gates + layout.leftoverStart
        for (vector, lanes) in leftoverActivations.enumerated() {
            let x = MatrixMultiply.load(block + 16 * vector)
            MatrixMultiply.store(lanes(x, gate: recurrentActivation, candidate: activation), block + 16 * vector)
        }
        leftoverCells(block, h, c) { VectorMath.apply(activation, $0) }
    }

    /// The cell update of the leftover units, 4 at a time, from their
    /// activated gates in `block` (``LSTMGateLayout``); `cellActivation`
    /// is tanh or the configured activation.
    @inline(__always)
    func leftoverCells(
        _ block: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>,
        cellActivation: (MatrixMultiply.Vector) -> MatrixMultiply.Vector
    ) {
        let layout = lstmLayout!
        let stride = layout.leftoverStride
        let full = layout.fullUnits
        var group = 0
        while group < stride {
            let i = Self.loadGroup(block + group)
            let f = Self.loadGroup(block + stride + group)
            let g = Self.loadGroup(block + 2 * stride + group)
            let o = Self.loadGroup(block + 3 * stride + group)
            let cell = (f * Self.loadGroup(c + full + group)).addingProduct(i, g)
            Self.storeGroup(cell, c + full + group)
            Self.storeGroup(o * cellActivation(Self.widened(cell)).lowHalf.lowHalf, h + full + group)
            group += 4
        }
    }

    @inline(__always)
    static func loadGroup(_ p: UnsafeMutablePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    static func storeGroup(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
    }

    /// Four units in a whole vector (the other lanes zero), for the vector activations.
    @inline(__always)
    static func widened(_ v: SIMD4<Float>) -> MatrixMultiply.Vector {
        MatrixMultiply.Vector(lowHalf: SIMD8(lowHalf: v, highHalf: .zero), highHalf: .zero)
    }
}
