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

/// LSTM, GRU and SimpleRNN over a [batch, time, features] input. The math
/// is in Reference/Reference{LSTM,GRU,SimpleRNN}.swift; what follows is
/// layout and speed.
///
/// The input projection for every step is one matrix product up front
/// (x·W + b for all batch × time rows); each time step then runs the cell's
/// `advance` (LSTMStep.swift, GRUStep.swift, SimpleRNNStep.swift), which adds
/// h·U and applies the gates with vector code. The streaming scorer calls
/// the same `advance` one step at a time. With `goBackwards` the steps run
/// from the last to the first and the output sequence is in that (reversed)
/// order, exactly as Keras returns it.
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
    let inputBias: AlignedFloats
    /// h·U for all gates (GRU reset_after=false: only z and r).
    let recurrent: PackedMatrix
    /// GRU reset_after=false: U_h, applied to r∘h.
    let candidateRecurrent: PackedMatrix?
    /// GRU reset_after=true: the recurrent bias row.
    let recurrentBias: AlignedFloats
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
            inputBias = AlignedFloats(paddedBias(bias.map { layout.permuted(Array($0[0..<width]), rows: 1) }, columns: layout.columns))
        } else {
            lstmLayout = nil
            leftoverActivations = []
            self.kernel = PackedMatrix(rows: inputWidth, columns: width, rowMajor: kernel)
            inputBias = AlignedFloats(paddedBias(bias.map { Array($0[0..<width]) }, columns: width))
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
        recurrentBias = AlignedFloats(paddedBias(biasRows == 2 ? bias.map { Array($0[width...]) } : nil, columns: width))
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
        // x·W + b for every (example, step), with slack for whole-vector gate reads.
        let projected = scratch.buffer(batch * steps * stride + 4 * lanes, zeroFrom: batch * steps * stride).pointer
        input.values.withUnsafeBufferPointer { x in
            MatrixMultiply.multiply(
                x.baseAddress!, lda: inputWidth, rows: batch * steps, kernel.values.pointer, wRows: inputWidth,
                wStride: stride, into: projected, ldc: stride, start: .bias(inputBias.pointer))
        }
        let buffers = makeBuffers(batch: batch, scratch: scratch)
        let outputSteps = returnSequences ? steps : 1
        let outputCount = batch * outputSteps * units
        // Every output value is written below (each step's h, or the last one), so the array starts uninitialized.
        let output = [Float](unsafeUninitializedCapacity: outputCount) { values, initialized in
            let o = values.baseAddress!
            if batch == 1, case .lstm = cell, recurrent.stride / lanes <= 16 {
                singleLSTMSteps(projected, buffers, output: o)
            } else {
                for step in 0..<steps {
                    let time = goBackwards ? steps - 1 - step : step
                    advance(projected + time * stride, rowStride: steps * stride, batch: batch, buffers)
                    if returnSequences {
                        for example in 0..<batch {
                            copyHidden(buffers.hidden + example * buffers.hiddenStride, to: o + (example * steps + step) * units)
                        }
                    }
                }
            }
            if !returnSequences {
                for example in 0..<batch { copyHidden(buffers.hidden + example * buffers.hiddenStride, to: o + example * units) }
            }
            initialized = outputCount
        }
        return Tensor(batch: batch, exampleShape: outputShape, values: output)
    }

    /// One time step of every example: `gates` holds each example's x·W + b
    /// row for this step, `rowStride` apart; h (and the LSTM's c) in
    /// `buffers` advance in place.
    func advance(_ gates: UnsafeMutablePointer<Float>, rowStride: Int, batch: Int, _ buffers: RecurrentBuffers) {
        switch cell {
        case .lstm: lstmAdvance(gates, rowStride: rowStride, batch: batch, buffers)
        case .simple: simpleAdvance(gates, rowStride: rowStride, batch: batch, buffers)
        case .gru(resetAfter: true): gruResetAfterAdvance(gates, rowStride: rowStride, batch: batch, buffers)
        case .gru(resetAfter: false): gruResetBeforeAdvance(gates, rowStride: rowStride, batch: batch, buffers)
        }
    }

    /// The state and working rows of `batch` examples, zeroed, from `scratch`.
    func makeBuffers(batch: Int, scratch: Scratch) -> RecurrentBuffers {
        let lanes = MatrixMultiply.Vector.scalarCount
        let hiddenStride = PackedMatrix.paddedWidth(units)
        let isGRU = if case .gru = cell { true } else { false }
        let candidateRows = candidateRecurrent == nil ? 0 : batch * hiddenStride + lanes
        return RecurrentBuffers(
            hiddenStride: hiddenStride, hidden: scratch.zeros(batch * hiddenStride + lanes).pointer,
            cell: scratch.zeros(batch * hiddenStride + lanes).pointer,
            recurrentOut: scratch.zeros(isGRU ? batch * recurrent.stride + 4 * lanes : 0).pointer,
            gated: scratch.zeros(candidateRows).pointer, candidate: scratch.zeros(candidateRows).pointer)
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
}

/// Where a recurrent layer's examples keep their state and working rows
/// (each `hiddenStride` apart): pointers into a ``Scratch``.
struct RecurrentBuffers {
    let hiddenStride: Int
    let hidden: UnsafeMutablePointer<Float>
    /// The LSTM's c.
    let cell: UnsafeMutablePointer<Float>
    /// GRU: h·U apart from the input part (rows `recurrent.stride` apart).
    let recurrentOut: UnsafeMutablePointer<Float>
    /// GRU reset_after=false: r∘h and its product with U_h.
    let gated: UnsafeMutablePointer<Float>
    let candidate: UnsafeMutablePointer<Float>
}
