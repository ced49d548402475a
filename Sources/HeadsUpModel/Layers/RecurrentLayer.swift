import HeadsUpKernels

/// LSTM, GRU and SimpleRNN over a [batch, time, features] input. The math
/// is in Reference/Reference{LSTM,GRU,SimpleRNN}.swift; what follows is
/// layout and speed.
///
/// The input projection for every step is one matrix product up front
/// (x·W + b for all batch × time rows); each time step then runs the cell's
/// `advance` (HeadsUpKernels' RecurrentKernels.swift, through the model's
/// ``KernelTable``, the CPU level chosen at load), which adds h·U and
/// applies the gates with vector code. With `goBackwards` the steps run from the
/// last to the first and the output sequence is in that (reversed) order,
/// exactly as Keras returns it.
struct RecurrentLayer: SequenceLayer {
    let name: String
    let className: String
    let inputWidth: Int
    /// x·W + b for every step (LSTM: columns in ``LSTMGateLayout``'s order).
    let kernel: PackedMatrix
    let inputBias: AlignedFloats
    /// The cell, its options and recurrent weights: what the steps need.
    let core: RecurrentCore
    let kernels: KernelTable
    let parameterCount: Int
    let outputShape: [Int]

    var cell: RecurrentCell { core.cell }
    var units: Int { core.units }
    var steps: Int { core.steps }
    var returnSequences: Bool { core.returnSequences }
    var goBackwards: Bool { core.goBackwards }
    var activation: Activation { core.activation }
    var recurrentActivation: Activation { core.recurrentActivation }

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
        activation: Activation, recurrentActivation: Activation, returnSequences: Bool, goBackwards: Bool, kernels: KernelTable
    ) {
        self.name = name
        self.className = className
        self.kernels = kernels
        inputWidth = inputShape[1]
        let width = cell.gateCount * units
        let lstmLayout: LSTMGateLayout?
        if case .lstm = cell {
            let layout = LSTMGateLayout(units: units)
            lstmLayout = layout
            self.kernel = PackedMatrix(rows: inputWidth, columns: layout.columns, rowMajor: layout.permuted(kernel, rows: inputWidth))
            inputBias = AlignedFloats(paddedBias(bias.map { layout.permuted(Array($0[0..<width]), rows: 1) }, columns: layout.columns))
        } else {
            lstmLayout = nil
            self.kernel = PackedMatrix(rows: inputWidth, columns: width, rowMajor: kernel)
            inputBias = AlignedFloats(paddedBias(bias.map { Array($0[0..<width]) }, columns: width))
        }
        let recurrent: PackedMatrix
        let candidateRecurrent: PackedMatrix?
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
        core = RecurrentCore(
            cell: cell, units: units, steps: inputShape[0], returnSequences: returnSequences, goBackwards: goBackwards, activation: activation,
            recurrentActivation: recurrentActivation, projectedStride: self.kernel.stride, recurrent: recurrent,
            candidateRecurrent: candidateRecurrent,
            recurrentBias: AlignedFloats(paddedBias(biasRows == 2 ? bias.map { Array($0[width...]) } : nil, columns: width)),
            lstmLayout: lstmLayout)
        parameterCount = inputWidth * width + units * width + (bias?.count ?? 0)
        outputShape = returnSequences ? [inputShape[0], units] : [units]
    }

    func forward(_ input: Tensor) -> Tensor {
        forward(input, scratch: Scratch())
    }

    func forward(_ input: Tensor, scratch: Scratch) -> Tensor {
        let batch = input.batchSize
        let stride = kernel.stride
        let lanes = PackedMatrix.lanes
        // x·W + b for every (example, step), with slack for whole-vector gate reads.
        let projected = scratch.buffer(batch * steps * stride + 4 * lanes, zeroFrom: batch * steps * stride).pointer
        input.values.withUnsafeBufferPointer { x in
            kernels.multiply(
                x.baseAddress!, lda: inputWidth, rows: batch * steps, kernel, into: projected, ldc: stride, start: .bias(inputBias.pointer))
        }
        let buffers = makeBuffers(batch: batch, scratch: scratch)
        let outputSteps = returnSequences ? steps : 1
        let outputCount = batch * outputSteps * units
        // Every output value is written below (each step's h, or the last one), so the array starts uninitialized.
        let output = [Float](unsafeUninitializedCapacity: outputCount) { values, initialized in
            let o = values.baseAddress!
            if batch == 1, core.runsWindowInRegisters {
                kernels.lstmWindow(core, projected, buffers, output: o)
            } else {
                for step in 0..<steps {
                    let time = goBackwards ? steps - 1 - step : step
                    kernels.advance(core, projected + time * stride, rowStride: steps * stride, batch: batch, buffers)
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

    /// The state and working rows of `batch` examples, zeroed, from `scratch`.
    func makeBuffers(batch: Int, scratch: Scratch) -> RecurrentBuffers {
        let lanes = PackedMatrix.lanes
        let hiddenStride = PackedMatrix.paddedWidth(units)
        let isGRU = if case .gru = cell { true } else { false }
        let candidateRows = core.candidateRecurrent == nil ? 0 : batch * hiddenStride + lanes
        return RecurrentBuffers(
            hiddenStride: hiddenStride, hidden: scratch.zeros(batch * hiddenStride + lanes).pointer,
            cell: scratch.zeros(batch * hiddenStride + lanes).pointer,
            recurrentOut: scratch.zeros(isGRU ? batch * core.recurrent.stride + 4 * lanes : 0).pointer,
            gated: scratch.zeros(candidateRows).pointer, candidate: scratch.zeros(candidateRows).pointer)
    }

    @inline(__always)
    func copyHidden(_ h: UnsafeMutablePointer<Float>, to destination: UnsafeMutablePointer<Float>) {
        SIMDMemory.copy(h, count: units, to: destination)
    }
}
