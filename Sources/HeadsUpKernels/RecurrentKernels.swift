/// The recurrent cells' time steps, fast. The math is in HeadsUpModel's
/// Reference/Reference{LSTM,GRU,SimpleRNN}.swift; what follows is layout
/// and speed: h·U added in place to the step's projected row, then the
/// gates a vector of 16 units at a time (the LSTM's in
/// ``LSTMGateLayout``'s order, its leftover units in one block).
public enum RecurrentKernels<M: MultiplyAdd> {
    public typealias Vector = SIMD16<Float>

    /// One time step of `batch` examples: `gates` holds each example's
    /// x·W + b row for this step, `rowStride` apart; h (and the LSTM's c)
    /// in `buffers` advance in place.
    @inlinable @inline(__always)
    public static func advance(
        _ core: RecurrentCore, _ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers
    ) {
        switch core.cell {
        case .lstm: lstmAdvance(core, gates, rowStride: rowStride, batch: batch, buffers)
        case .simple: simpleAdvance(core, gates, rowStride: rowStride, batch: batch, buffers)
        case .gru(resetAfter: true): gruResetAfterAdvance(core, gates, rowStride: rowStride, batch: batch, buffers)
        case .gru(resetAfter: false): gruResetBeforeAdvance(core, gates, rowStride: rowStride, batch: batch, buffers)
        }
    }

    // MARK: LSTM

    @inlinable @inline(__always)
    static func lstmAdvance(_ core: RecurrentCore, _ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers) {
        MatrixMultiply<M>.multiply(
            buffers.hidden, lda: buffers.hiddenStride, rows: batch, core.recurrent.values.pointer, wRows: core.units,
            wStride: core.recurrent.stride, into: gates, ldc: rowStride, start: .accumulate)
        for example in 0..<batch {
            lstmGates(
                core, gates + example * rowStride, buffers.hidden + example * buffers.hiddenStride, buffers.cell + example * buffers.hiddenStride)
        }
    }

    /// A single example's whole LSTM window (``RecurrentCore/runsWindowInRegisters``):
    /// one time loop specialized for h·U's vector count, so the steps run in
    /// one function, not through ``MatrixMultiply/multiply`` and its dispatch
    /// on every step (about 0.5 µs a window of the seed model). `output`
    /// takes each step's h with `returnSequences`; the final h stays in `buffers`.
    @inlinable @inline(__always)
    public static func lstmWindow(
        _ core: RecurrentCore, _ projected: UnsafeMutablePointer<Float>, _ buffers: RecurrentBuffers, output: UnsafeMutablePointer<Float>
    ) {
        MatrixMultiply<M>.withAccumulators(
            vectors: core.recurrent.stride / Vector.scalarCount,
            LSTMWindow(core: core, projected: projected, hidden: buffers.hidden, state: buffers.cell, output: output))
    }

    @usableFromInline
    struct LSTMWindow: AccumulatorCountSpecialized {
        @usableFromInline let core: RecurrentCore
        @usableFromInline let projected: UnsafeMutablePointer<Float>, hidden: UnsafeMutablePointer<Float>, state: UnsafeMutablePointer<Float>
        @usableFromInline let output: UnsafeMutablePointer<Float>

        @inlinable
        init(
            core: RecurrentCore, projected: UnsafeMutablePointer<Float>, hidden: UnsafeMutablePointer<Float>, state: UnsafeMutablePointer<Float>,
            output: UnsafeMutablePointer<Float>
        ) {
            (self.core, self.projected, self.hidden, self.state, self.output) = (core, projected, hidden, state, output)
        }

        @inlinable @inline(__always)
        func callAsFunction<let N: Int>(_ accumulators: InlineArray<N, SIMD16<Float>>.Type) {
            RecurrentKernels.lstmWindow(accumulators, core, projected, hidden, state, output)
        }
    }

    /// Kept out of line: inlined into its callers, the same loop ran slower.
    @inlinable @inline(never)
    static func lstmWindow<let N: Int>(
        _ accumulators: InlineArray<N, SIMD16<Float>>.Type, _ core: RecurrentCore, _ p: UnsafeMutablePointer<Float>,
        _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>, _ o: UnsafeMutablePointer<Float>
    ) {
        let stride = core.projectedStride
        let steps = core.steps
        let u = core.recurrent.values.pointer
        for step in 0..<steps {
            let gates = p + (core.goBackwards ? steps - 1 - step : step) * stride
            if N <= MatrixMultiply<M>.vectorsPerPass {
                MatrixMultiply<M>.rowPass(accumulators, h, u, k: core.units, wStride: core.recurrent.stride, gates, start: .accumulate, column: 0)
            } else {
                // AVX2 or SSE: 13 vectors would spill; passes that fit the registers.
                MatrixMultiply<M>.rowPasses(vectors: N, h, u, k: core.units, wStride: core.recurrent.stride, gates, start: .accumulate)
            }
            lstmGates(core, gates, h, c)
            if core.returnSequences { SIMDMemory.copy(h, count: core.units, to: o + step * core.units) }
        }
    }

    /// One LSTM step's cell update for one example, from its gate row:
    /// sigmoid gates and tanh inlined (the common case), or the activations
    /// the config names (hard_sigmoid gates, relu, ...).
    @inlinable @inline(__always)
    static func lstmGates(
        _ core: RecurrentCore, _ gates: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>
    ) {
        if core.standardActivations {
            lstmGates(core, gates, h, c, StandardLSTMActivations<M>())
        } else {
            lstmGates(core, gates, h, c, ConfiguredLSTMActivations<M>(gate: core.recurrentActivation, candidate: core.activation))
        }
    }

    /// The gate loop, written once and specialized for each kind of
    /// activations (as RTNeural passes them as a type). Kept out of line:
    /// inlined into the time loop, the standard cell's twenty-odd constants
    /// crowded h·U's accumulators out of the registers and the window got
    /// slower. Gates are in ``LSTMGateLayout``'s order.
    @inlinable @inline(never)
    static func lstmGates<A: LSTMActivations>(
        _ core: RecurrentCore, _ gates: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>,
        _ activations: A
    ) {
        let layout = core.lstmLayout!
        let full = layout.fullUnits
        var j = 0
        while j < full {
            let (cell, hidden) = activations.cell(
                input: SIMDMemory.load(gates + j), forget: SIMDMemory.load(gates + full + j),
                candidate: SIMDMemory.load(gates + 2 * full + j), output: SIMDMemory.load(gates + 3 * full + j),
                cell: SIMDMemory.load(c + j))
            SIMDMemory.store(cell, c + j)
            SIMDMemory.store(hidden, h + j)
            j += 16
        }
        // The leftover block: every gate's activation in one pass over its vectors, then the units 4 at a time.
        let block = gates + layout.leftoverStart
        for (vector, lanes) in core.leftoverActivations.enumerated() {
            SIMDMemory.store(activations.leftover(SIMDMemory.load(block + 16 * vector), lanes), block + 16 * vector)
        }
        leftoverCells(layout, block, h, c) { activations.cellOutput($0) }
    }

    /// The cell update of the leftover units, 4 at a time, from their
    /// activated gates in `block` (``LSTMGateLayout``); `cellActivation`
    /// is tanh or the configured activation.
    @inlinable @inline(__always)
    static func leftoverCells(
        _ layout: LSTMGateLayout, _ block: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>,
        cellActivation: (SIMD16<Float>) -> SIMD16<Float>
    ) {
        let stride = layout.leftoverStride
        let full = layout.fullUnits
        var group = 0
        while group < stride {
            let i = SIMDMemory.load4(block + group)
            let f = SIMDMemory.load4(block + stride + group)
            let g = SIMDMemory.load4(block + 2 * stride + group)
            let o = SIMDMemory.load4(block + 3 * stride + group)
            let cell = M.adding(f * SIMDMemory.load4(c + full + group), i, g)
            SIMDMemory.store4(cell, c + full + group)
            let widened = SIMD16<Float>(lowHalf: SIMD8(lowHalf: cell, highHalf: .zero), highHalf: .zero)
            SIMDMemory.store4(o * cellActivation(widened).lowHalf.lowHalf, h + full + group)
            group += 4
        }
    }

    // MARK: GRU

    /// reset_after = true: h·U (with its own bias) apart, then the gates.
    @inlinable @inline(__always)
    static func gruResetAfterAdvance(
        _ core: RecurrentCore, _ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers
    ) {
        let recurrent = core.recurrent
        MatrixMultiply<M>.multiply(
            buffers.hidden, lda: buffers.hiddenStride, rows: batch, recurrent.values.pointer, wRows: core.units, wStride: recurrent.stride,
            into: buffers.recurrentOut, ldc: recurrent.stride, start: .bias(core.recurrentBias.pointer))
        for example in 0..<batch {
            gruResetAfter(
                core, gates + example * rowStride, buffers.recurrentOut + example * recurrent.stride, buffers.hidden + example * buffers.hiddenStride)
        }
    }

    /// reset_after = false: h·U for z and r, then r∘h, its product with U_h, and the update.
    @inlinable @inline(__always)
    static func gruResetBeforeAdvance(
        _ core: RecurrentCore, _ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers
    ) {
        let hiddenStride = buffers.hiddenStride
        let recurrent = core.recurrent
        MatrixMultiply<M>.multiply(
            buffers.hidden, lda: hiddenStride, rows: batch, recurrent.values.pointer, wRows: core.units, wStride: recurrent.stride,
            into: buffers.recurrentOut, ldc: recurrent.stride, start: .zero)
        for example in 0..<batch {
            gruResetGate(
                core, gates + example * rowStride, buffers.recurrentOut + example * recurrent.stride, buffers.hidden + example * hiddenStride,
                buffers.gated + example * hiddenStride)
        }
        let candidateWeights = core.candidateRecurrent!
        MatrixMultiply<M>.multiply(
            buffers.gated, lda: hiddenStride, rows: batch, candidateWeights.values.pointer, wRows: core.units, wStride: candidateWeights.stride,
            into: buffers.candidate, ldc: hiddenStride, start: .zero)
        for example in 0..<batch {
            gruResetBefore(
                core, gates + example * rowStride, buffers.recurrentOut + example * recurrent.stride, buffers.candidate + example * hiddenStride,
                buffers.hidden + example * hiddenStride)
        }
    }

    /// GRU, reset_after = true: hh = act(x·W_h + b_h + r ∘ (h·U_h + b'_h)).
    @inlinable @inline(__always)
    static func gruResetAfter(
        _ core: RecurrentCore, _ x: UnsafeMutablePointer<Float>, _ recurrent: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>
    ) {
        let u = core.units
        let (gate, candidate) = (core.recurrentActivation, core.activation)
        var j = 0
        while j < u {
            let z = VectorMath<M>.apply(gate, SIMDMemory.load(x + j) + SIMDMemory.load(recurrent + j))
            let r = VectorMath<M>.apply(gate, SIMDMemory.load(x + u + j) + SIMDMemory.load(recurrent + u + j))
            let hh = VectorMath<M>.apply(candidate, SIMDMemory.load(x + 2 * u + j) + r * SIMDMemory.load(recurrent + 2 * u + j))
            let previous = SIMDMemory.load(h + j)
            SIMDMemory.store(z * previous + (1 - z) * hh, h + j)
            j += 16
        }
    }

    /// GRU, reset_after = false, first half: r ∘ h, the input of the candidate's product.
    @inlinable @inline(__always)
    static func gruResetGate(
        _ core: RecurrentCore, _ x: UnsafeMutablePointer<Float>, _ recurrent: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>,
        _ gated: UnsafeMutablePointer<Float>
    ) {
        let u = core.units
        var j = 0
        while j < u {
            let r = VectorMath<M>.apply(core.recurrentActivation, SIMDMemory.load(x + u + j) + SIMDMemory.load(recurrent + u + j))
            SIMDMemory.store(r * SIMDMemory.load(h + j), gated + j)
            j += 16
        }
    }

    /// GRU, reset_after = false, second half: hh = act(x·W_h + b_h + (r∘h)·U_h).
    @inlinable @inline(__always)
    static func gruResetBefore(
        _ core: RecurrentCore, _ x: UnsafeMutablePointer<Float>, _ recurrent: UnsafeMutablePointer<Float>, _ candidate: UnsafeMutablePointer<Float>,
        _ h: UnsafeMutablePointer<Float>
    ) {
        let u = core.units
        var j = 0
        while j < u {
            let z = VectorMath<M>.apply(core.recurrentActivation, SIMDMemory.load(x + j) + SIMDMemory.load(recurrent + j))
            let hh = VectorMath<M>.apply(core.activation, SIMDMemory.load(x + 2 * u + j) + SIMDMemory.load(candidate + j))
            let previous = SIMDMemory.load(h + j)
            SIMDMemory.store(z * previous + (1 - z) * hh, h + j)
            j += 16
        }
    }

    // MARK: SimpleRNN

    /// One time step of `batch` examples: h = act(x·W + b + h·U).
    @inlinable @inline(__always)
    static func simpleAdvance(_ core: RecurrentCore, _ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers) {
        MatrixMultiply<M>.multiply(
            buffers.hidden, lda: buffers.hiddenStride, rows: batch, core.recurrent.values.pointer, wRows: core.units,
            wStride: core.recurrent.stride, into: gates, ldc: rowStride, start: .accumulate)
        for example in 0..<batch {
            let preactivation = gates + example * rowStride
            let h = buffers.hidden + example * buffers.hiddenStride
            var j = 0
            while j < core.units {
                SIMDMemory.store(VectorMath<M>.apply(core.activation, SIMDMemory.load(preactivation + j)), h + j)
                j += 16
            }
        }
    }
}

/// An LSTM's activations as a type, so that the gate loop
/// (``RecurrentKernels/lstmGates(_:_:_:_:_:)``) is written once.
public protocol LSTMActivations {
    /// 16 units' new cell state and output from their gates' pre-activations.
    func cell(
        input: SIMD16<Float>, forget: SIMD16<Float>, candidate: SIMD16<Float>, output: SIMD16<Float>, cell: SIMD16<Float>
    ) -> (cell: SIMD16<Float>, hidden: SIMD16<Float>)
    /// A vector of the leftover block, each lane by its gate's activation.
    func leftover(_ x: SIMD16<Float>, _ lanes: LSTMLeftoverActivation) -> SIMD16<Float>
    /// The activation of the new cell state (tanh, or the configured one).
    func cellOutput(_ x: SIMD16<Float>) -> SIMD16<Float>
}

/// Sigmoid gates and tanh, with the cell's divisions shared (``VectorMath/lstmCell``).
public struct StandardLSTMActivations<M: MultiplyAdd>: LSTMActivations {
    @inlinable public init() {}

    @inlinable @inline(__always)
    public func cell(
        input: SIMD16<Float>, forget: SIMD16<Float>, candidate: SIMD16<Float>, output: SIMD16<Float>, cell: SIMD16<Float>
    ) -> (cell: SIMD16<Float>, hidden: SIMD16<Float>) {
        VectorMath<M>.lstmCell(input: input, forget: forget, candidate: candidate, output: output, cell: cell)
    }

    @inlinable @inline(__always)
    public func leftover(_ x: SIMD16<Float>, _ lanes: LSTMLeftoverActivation) -> SIMD16<Float> { lanes(x, M.self) }

    @inlinable @inline(__always)
    public func cellOutput(_ x: SIMD16<Float>) -> SIMD16<Float> { VectorMath<M>.rationalTanh(x) }
}

/// The activations a layer's config names (hard_sigmoid gates, relu, ...).
public struct ConfiguredLSTMActivations<M: MultiplyAdd>: LSTMActivations {
    @usableFromInline let gate: Activation
    @usableFromInline let candidate: Activation

    @inlinable public init(gate: Activation, candidate: Activation) { (self.gate, self.candidate) = (gate, candidate) }

    @inlinable @inline(__always)
    public func cell(
        input: SIMD16<Float>, forget: SIMD16<Float>, candidate g: SIMD16<Float>, output: SIMD16<Float>, cell: SIMD16<Float>
    ) -> (cell: SIMD16<Float>, hidden: SIMD16<Float>) {
        let i = VectorMath<M>.apply(gate, input)
        let f = VectorMath<M>.apply(gate, forget)
        let o = VectorMath<M>.apply(gate, output)
        let next = f * cell + i * VectorMath<M>.apply(candidate, g)
        return (next, o * VectorMath<M>.apply(candidate, next))
    }

    @inlinable @inline(__always)
    public func leftover(_ x: SIMD16<Float>, _ lanes: LSTMLeftoverActivation) -> SIMD16<Float> {
        lanes(x, gate: gate, candidate: candidate, M.self)
    }

    @inlinable @inline(__always)
    public func cellOutput(_ x: SIMD16<Float>) -> SIMD16<Float> { VectorMath<M>.apply(candidate, x) }
}
