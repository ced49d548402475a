/// The three Keras recurrent cells, with their weights packed for the
/// matrix kernel. Gate order is Keras's: LSTM i, f, c, o; GRU z, r, h.
enum RecurrentCell: Sendable {
    /// kernel [in, 4u], recurrent [u, 4u], bias 4u (already holding unit_forget_bias).
    case lstm
    /// `resetAfter`: r multiplies (h·U_h + b_rec) — Keras 2.3 default false, later true.
    case gru(resetAfter: Bool)
    case simple

    var gateCount: Int {
        switch self {
        case .lstm: 4
        case .gru: 3
        case .simple: 1
        }
    }
}

/// LSTM, GRU and SimpleRNN over a [batch, time, features] input.
///
/// The input projection for every step is one matrix product up front
/// (x·W + b for all batch × time rows); each step then adds h·U in place and
/// applies the gates with vectorized sigmoid/tanh. With `goBackwards` the
/// steps run from the last to the first and the output sequence is in that
/// (reversed) order, exactly as Keras returns it.
struct RecurrentLayer: SequenceLayer {
    let name: String
    let className: String
    let cell: RecurrentCell
    let units: Int
    let inputWidth: Int
    let steps: Int
    let returnSequences: Bool
    let goBackwards: Bool
    let activation: Activation
    let recurrentActivation: Activation
    let kernel: PackedMatrix
    let inputBias: [Float]
    /// h·U for all gates (GRU reset_after=false: only z and r).
    let recurrent: PackedMatrix
    /// GRU reset_after=false: U_h, applied to r∘h.
    let candidateRecurrent: PackedMatrix?
    /// GRU reset_after=true: the recurrent bias row.
    let recurrentBias: [Float]
    let parameterCount: Int
    let outputShape: [Int]
    /// sigmoid gates and tanh activations, the common case, take a path
    /// with the activations inlined.
    let standardActivations: Bool
    /// LSTM: the gates' column order in `kernel`, `recurrent` and `inputBias`.
    let lstmLayout: LSTMGateLayout?
    /// LSTM: which activation each lane of the leftover block takes.
    let leftoverActivations: [LSTMLeftoverActivation]

    var details: String {
        var parts = [activation.description]
        if cell.gateCount > 1 { parts.append("recurrent \(recurrentActivation)") }
        if case .gru(let resetAfter) = cell { parts.append("reset_after=\(resetAfter)") }
        if returnSequences { parts.append("return_sequences") }
        if goBackwards { parts.append("go_backwards") }
        return parts.joined(separator: ", ")
    }

    init(
        name: String, className: String, cell: RecurrentCell, inputShape: [Int], units: Int,
        kernel: [Float], recurrentKernel: [Float], bias: [Float]?, biasRows: Int,
        activation: Activation, recurrentActivation: Activation, returnSequences: Bool, goBackwards: Bool
    ) {
        self.name = name
        self.className = className
        self.cell = cell
        self.units = units
        steps = inputShape[0]
        inputWidth = inputShape[1]
        self.returnSequences = returnSequences
        self.goBackwards = goBackwards
        self.activation = activation
        self.recurrentActivation = recurrentActivation
        let width = cell.gateCount * units
        if case .lstm = cell {
            let layout = LSTMGateLayout(units: units)
            lstmLayout = layout
            leftoverActivations = layout.leftoverActivations()
            self.kernel = PackedMatrix(rows: inputWidth, columns: layout.columns, rowMajor: layout.permuted(kernel, rows: inputWidth))
            inputBias = paddedBias(bias.map { layout.permuted(Array($0[0..<width]), rows: 1) }, columns: layout.columns)
        } else {
            lstmLayout = nil
            leftoverActivations = []
            self.kernel = PackedMatrix(rows: inputWidth, columns: width, rowMajor: kernel)
            inputBias = paddedBias(bias.map { Array($0[0..<width]) }, columns: width)
        }
        if let lstmLayout {
            recurrent = PackedMatrix(rows: units, columns: lstmLayout.columns, rowMajor: lstmLayout.permuted(recurrentKernel, rows: units))
            candidateRecurrent = nil
        } else if case .gru(resetAfter: false) = cell {
            var zr: [Float] = []
            var h: [Float] = []
            for row in 0..<units {
                zr += recurrentKernel[(row * width)..<(row * width + 2 * units)]
                h += recurrentKernel[(row * width + 2 * units)..<((row + 1) * width)]
            }
            recurrent = PackedMatrix(rows: units, columns: 2 * units, rowMajor: zr)
            candidateRecurrent = PackedMatrix(rows: units, columns: units, rowMajor: h)
        } else {
            recurrent = PackedMatrix(rows: units, columns: width, rowMajor: recurrentKernel)
            candidateRecurrent = nil
        }
        recurrentBias = paddedBias(biasRows == 2 ? bias.map { Array($0[width...]) } : nil, columns: width)
        parameterCount = inputWidth * width + units * width + (bias?.count ?? 0)
        outputShape = returnSequences ? [steps, units] : [units]
        standardActivations = activation == .tanh && recurrentActivation == .sigmoid
    }

    func forward(_ input: Tensor) -> Tensor {
        forward(input, scratch: Scratch())
    }

    func forward(_ input: Tensor, scratch: Scratch) -> Tensor {
        let batch = input.batchSize
        let stride = kernel.stride
        let lanes = MatrixMultiply.Vector.scalarCount
        let hiddenStride = PackedMatrix.paddedWidth(units)
        // x·W + b for every (example, step), with slack for whole-vector gate reads.
        let projected = scratch.buffer(batch * steps * stride + 4 * lanes, zeroFrom: batch * steps * stride)
        let hidden = scratch.zeros(batch * hiddenStride + lanes)
        let state = scratch.zeros(batch * hiddenStride + lanes)
        let outputCount = batch * (returnSequences ? steps : 1) * units
        let outputSteps = returnSequences ? steps : 1

        input.values.withUnsafeBufferPointer { x in
            kernel.values.withUnsafeBufferPointer { w in
                inputBias.withUnsafeBufferPointer { b in
                    projected.withUnsafeMutableBufferPointer { p in
                        MatrixMultiply.multiply(
                            x.baseAddress!, lda: inputWidth, rows: batch * steps, w.baseAddress!, wRows: inputWidth,
                            wStride: stride, into: p.baseAddress!, ldc: stride, start: .bias(b.baseAddress!))
                    }
                }
            }
        }

        let vectors = recurrent.stride / lanes
        if batch == 1, case .lstm = cell, vectors <= 16 {
            // A single example: one time loop specialized for h·U's vector count.
            let output = [Float](unsafeUninitializedCapacity: outputCount) { o, initialized in
                let h = hidden.pointer, output = o.baseAddress!
                MatrixMultiply.withAccumulators(
                    vectors: vectors,
                    SingleLSTMSteps(
                        layer: self, projected: projected.pointer, hidden: h, state: state.pointer,
                        recurrent: recurrent.values.pointer, output: output))
                if !returnSequences { output.initialize(from: h, count: units) }
                initialized = outputCount
            }
            return Tensor(batch: batch, exampleShape: outputShape, values: output)
        }

        // GRU scratch: h·U apart from the input part, and reset_after=false's r∘h and its product.
        let isGRU = if case .gru = cell { true } else { false }
        let recurrentOut = scratch.zeros(isGRU ? batch * recurrent.stride + 4 * lanes : 0)
        let gruScratch = candidateRecurrent == nil ? 0 : batch * hiddenStride + lanes
        let gated = scratch.zeros(gruScratch)
        let candidate = scratch.zeros(gruScratch)

        // Every output value is written below (each step's h, or the last one), so the array starts uninitialized.
        let output = [Float](unsafeUninitializedCapacity: outputCount) { oBuffer, initialized in
        projected.withUnsafeMutableBufferPointer { pBuffer in
        hidden.withUnsafeMutableBufferPointer { hBuffer in
        state.withUnsafeMutableBufferPointer { cBuffer in
        recurrentOut.withUnsafeMutableBufferPointer { rBuffer in
        gated.withUnsafeMutableBufferPointer { gBuffer in
        candidate.withUnsafeMutableBufferPointer { candidateBuffer in
        recurrent.values.withUnsafeBufferPointer { uBuffer in
        recurrentBias.withUnsafeBufferPointer { rbBuffer in
            let p = pBuffer.baseAddress!, h = hBuffer.baseAddress!, c = cBuffer.baseAddress!
            let r = rBuffer.baseAddress!, u = uBuffer.baseAddress!, o = oBuffer.baseAddress!
            for step in 0..<steps {
                let time = goBackwards ? steps - 1 - step : step
                let rows = p + time * stride
                let rowStride = steps * stride
                switch cell {
                case .lstm, .simple:
                    MatrixMultiply.multiply(
                        h, lda: hiddenStride, rows: batch, u, wRows: units, wStride: recurrent.stride,
                        into: rows, ldc: rowStride, start: .accumulate)
                    for example in 0..<batch {
                        if case .lstm = cell {
                            lstmGates(rows + example * rowStride, h + example * hiddenStride, c + example * hiddenStride)
                        } else {
                            simpleStep(rows + example * rowStride, h + example * hiddenStride)
                        }
                    }
                case .gru(let resetAfter):
                    if resetAfter {
                        MatrixMultiply.multiply(
                            h, lda: hiddenStride, rows: batch, u, wRows: units, wStride: recurrent.stride,
                            into: r, ldc: recurrent.stride, start: .bias(rbBuffer.baseAddress!))
                        for example in 0..<batch {
                            gruResetAfter(rows + example * rowStride, r + example * recurrent.stride, h + example * hiddenStride)
                        }
                    } else {
                        MatrixMultiply.multiply(
                            h, lda: hiddenStride, rows: batch, u, wRows: units, wStride: recurrent.stride,
                            into: r, ldc: recurrent.stride, start: .zero)
                        let g = gBuffer.baseAddress!, candidateOut = candidateBuffer.baseAddress!
                        for example in 0..<batch {
                            gruResetGate(rows + example * rowStride, r + example * recurrent.stride, h + example * hiddenStride, g + example * hiddenStride)
                        }
                        candidateRecurrent!.values.withUnsafeBufferPointer { uh in
                            MatrixMultiply.multiply(
                                g, lda: hiddenStride, rows: batch, uh.baseAddress!, wRows: units,
                                wStride: candidateRecurrent!.stride, into: candidateOut, ldc: hiddenStride, start: .zero)
                        }
                        for example in 0..<batch {
                            gruResetBefore(rows + example * rowStride, r + example * recurrent.stride, candidateOut + example * hiddenStride, h + example * hiddenStride)
                        }
                    }
                }
                if returnSequences {
                    for example in 0..<batch {
                        (o + (example * outputSteps + step) * units).initialize(from: h + example * hiddenStride, count: units)
                    }
                }
            }
            if !returnSequences {
                for example in 0..<batch { (o + example * units).initialize(from: h + example * hiddenStride, count: units) }
            }
        }}}}}}}}
        initialized = outputCount
        }
        return Tensor(batch: batch, exampleShape: outputShape, values: output)
    }

    /// One example's LSTM time loop with h·U's accumulators sized at
    /// compile time: a single window's steps then run in one function, not
    /// through ``MatrixMultiply/multiply`` and its dispatch on every step
    /// (about 0.5 µs a window of the seed model: `headsup model bench`
    /// before and after 560683a).
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

    /// h's `units` values, whole vectors then the rest: a memcpy call per
    /// step would cost more than the copy.
    @inline(__always)
    func copyHidden(_ h: UnsafeMutablePointer<Float>, to destination: UnsafeMutablePointer<Float>) {
        var j = 0
        while j + 16 <= units {
            MatrixMultiply.store(MatrixMultiply.load(h + j), destination + j)
            j += 16
        }
        while j < units {
            (destination + j).initialize(to: h[j])
            j += 1
        }
    }

    // MARK: Gate updates, one example, whole vectors (pad lanes are scratch)

    /// One LSTM step's cell update for one example, from its gate row.
    @inline(__always)
    func lstmGates(_ gates: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ c: UnsafeMutablePointer<Float>) {
        if standardActivations { standardLSTMGates(gates, h, c) } else { configuredLSTMGates(gates, h, c) }
    }

    /// Sigmoid gates and tanh, with the activations inlined. The function
    /// itself stays out of line: inlined into the time loop, its twenty-odd
    /// constants crowded h·U's accumulators out of the registers and the
    /// window got slower. Apart from the configured-activation path, its
    /// prologue stays small (`headsup model bench` before and after bda8eec).
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
        let stride = layout.leftoverStride, full = layout.fullUnits
        var group = 0
        while group < stride {
            let i = Self.loadGroup(block + group), f = Self.loadGroup(block + stride + group)
            let g = Self.loadGroup(block + 2 * stride + group), o = Self.loadGroup(block + 3 * stride + group)
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

    @inline(__always)
    func simpleStep(_ preactivation: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>) {
        var j = 0
        while j < units {
            MatrixMultiply.store(VectorMath.apply(activation, MatrixMultiply.load(preactivation + j)), h + j)
            j += 16
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
    func gruResetGate(_ x: UnsafeMutablePointer<Float>, _ recurrent: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>, _ gated: UnsafeMutablePointer<Float>) {
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
    func gruResetBefore(_ x: UnsafeMutablePointer<Float>, _ recurrent: UnsafeMutablePointer<Float>, _ candidate: UnsafeMutablePointer<Float>, _ h: UnsafeMutablePointer<Float>) {
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
