/// The three Keras recurrent cells, with their weights packed for the
/// matrix kernel. Gate order is Keras's: LSTM i, f, c, o; GRU z, r, h.
public enum RecurrentCell: Sendable {
    /// kernel [in, 4u], recurrent [u, 4u], bias 4u (already holding unit_forget_bias).
    case lstm
    /// `resetAfter`: r multiplies (h·U_h + b_rec) — Keras 2.3 default false, later true.
    case gru(resetAfter: Bool)
    case simple

    public var gateCount: Int {
        switch self {
        case .lstm: 4
        case .gru: 3
        case .simple: 1
        }
    }
}

/// What a recurrent layer's time steps need: its cell, sizes, options and
/// the packed recurrent weights. The input projection x·W + b is done before
/// the steps (one matrix product), so it is not here.
public struct RecurrentCore: Sendable {
    public let cell: RecurrentCell
    public let units: Int
    public let steps: Int
    public let returnSequences: Bool
    public let goBackwards: Bool
    public let activation: Activation
    public let recurrentActivation: Activation
    /// sigmoid gates and tanh activations, the common case, take a path
    /// with the activations inlined.
    public let standardActivations: Bool
    /// Floats per projected row (x·W + b of one step): the input kernel's stride.
    public let projectedStride: Int
    /// h·U for all gates (GRU reset_after=false: only z and r).
    public let recurrent: PackedMatrix
    /// GRU reset_after=false: U_h, applied to r∘h.
    public let candidateRecurrent: PackedMatrix?
    /// GRU reset_after=true: the recurrent bias row.
    public let recurrentBias: AlignedFloats
    /// LSTM: the gates' column order in the packed weights and gate rows.
    public let lstmLayout: LSTMGateLayout?
    /// LSTM: which activation each lane of the leftover block takes.
    public let leftoverActivations: [LSTMLeftoverActivation]

    public init(
        cell: RecurrentCell, units: Int, steps: Int, returnSequences: Bool, goBackwards: Bool, activation: Activation,
        recurrentActivation: Activation, projectedStride: Int, recurrent: PackedMatrix, candidateRecurrent: PackedMatrix?,
        recurrentBias: AlignedFloats, lstmLayout: LSTMGateLayout?
    ) {
        self.cell = cell
        self.units = units
        self.steps = steps
        self.returnSequences = returnSequences
        self.goBackwards = goBackwards
        self.activation = activation
        self.recurrentActivation = recurrentActivation
        standardActivations = activation == .tanh && recurrentActivation == .sigmoid
        self.projectedStride = projectedStride
        self.recurrent = recurrent
        self.candidateRecurrent = candidateRecurrent
        self.recurrentBias = recurrentBias
        self.lstmLayout = lstmLayout
        leftoverActivations = lstmLayout?.leftoverActivations() ?? []
    }

    /// Whether one example's whole window can run as a single loop with
    /// h·U's accumulators in registers (``RecurrentKernels/lstmWindow``).
    public var runsWindowInRegisters: Bool {
        if case .lstm = cell { recurrent.stride / PackedMatrix.lanes <= 16 } else { false }
    }
}

/// Where a recurrent layer's examples keep their state and working rows
/// (each `hiddenStride` apart).
public struct RecurrentBuffers {
    public let hiddenStride: Int
    public let hidden: UnsafeMutablePointer<Float>
    /// The LSTM's c.
    public let cell: UnsafeMutablePointer<Float>
    /// GRU: h·U apart from the input part (rows `recurrent.stride` apart).
    public let recurrentOut: UnsafeMutablePointer<Float>
    /// GRU reset_after=false: r∘h and its product with U_h.
    public let gated: UnsafeMutablePointer<Float>
    public let candidate: UnsafeMutablePointer<Float>

    public init(
        hiddenStride: Int, hidden: UnsafeMutablePointer<Float>, cell: UnsafeMutablePointer<Float>, recurrentOut: UnsafeMutablePointer<Float>,
        gated: UnsafeMutablePointer<Float>, candidate: UnsafeMutablePointer<Float>
    ) {
        (self.hiddenStride, self.hidden, self.cell, self.recurrentOut, self.gated, self.candidate) =
            (hiddenStride, hidden, cell, recurrentOut, gated, candidate)
    }
}
