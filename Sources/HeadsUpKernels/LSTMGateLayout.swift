/// Where each LSTM gate's columns sit in the engine's packed weights, gate
/// row and bias, so that the cell update reads whole vectors without
/// wasting one on a few units.
///
/// Keras stores the four gates i, f, c, o one after the other, `units`
/// columns each. With 50 units that puts every gate but the first off a
/// vector boundary, and the cell's last vector of 16 units holds only 2 real
/// ones but costs as much as a full one. Here the units that fill whole
/// vectors (`fullUnits`, a multiple of 16) come first, gate by gate; the
/// remaining `units − fullUnits` of all four gates then share one block,
/// each gate's part padded to whole groups of 4 (`leftoverStride`):
///
///     [i 0..<full | f 0..<full | c 0..<full | o 0..<full | i f c o of the rest]
///
/// The column count stays within the same number of vectors as Keras's
/// order, so h·U costs the same, and the leftover block's activations are
/// one pass over its (at most 4) vectors (``LSTMLeftoverActivation``).
/// Permuting columns changes no sum: the results are Keras's.
public struct LSTMGateLayout: Sendable, Equatable {
    public static let gates = 4
    public static let vectorLanes = 16
    public static let groupLanes = 4

    public let units: Int
    /// Units in whole vectors of 16, laid out gate by gate.
    public let fullUnits: Int
    /// Floats per gate in the leftover block: the leftover units rounded up to 4.
    public let leftoverStride: Int

    public init(units: Int) {
        self.units = units
        fullUnits = units / Self.vectorLanes * Self.vectorLanes
        let leftover = units - fullUnits
        leftoverStride = (leftover + Self.groupLanes - 1) / Self.groupLanes * Self.groupLanes
    }

    /// First column of the leftover block.
    public var leftoverStart: Int { Self.gates * fullUnits }
    /// Columns of the packed matrices (padding of the leftover groups included).
    public var columns: Int { leftoverStart + Self.gates * leftoverStride }
    /// Vectors the leftover block's activations take.
    public var leftoverVectors: Int { (Self.gates * leftoverStride + Self.vectorLanes - 1) / Self.vectorLanes }

    /// The packed column of Keras's column `gate · units + unit`.
    public func column(gate: Int, unit: Int) -> Int {
        unit < fullUnits
            ? gate * fullUnits + unit
            : leftoverStart + gate * leftoverStride + (unit - fullUnits)
    }

    /// A row-major [rows × 4·units] Keras matrix (or a bias, rows = 1) with
    /// its columns moved to this layout; padding columns are zero.
    public func permuted(_ kerasRowMajor: [Float], rows: Int) -> [Float] {
        let kerasColumns = Self.gates * units
        precondition(kerasRowMajor.count == rows * kerasColumns)
        var result = [Float](repeating: 0, count: rows * columns)
        for row in 0..<rows {
            for gate in 0..<Self.gates {
                for unit in 0..<units {
                    result[row * columns + column(gate: gate, unit: unit)] = kerasRowMajor[row * kerasColumns + gate * units + unit]
                }
            }
        }
        return result
    }

    /// The leftover block's activation constants, one per vector of it.
    public func leftoverActivations() -> [LSTMLeftoverActivation] {
        (0..<leftoverVectors).map { vector in
            var isCandidate = SIMD16<Float>()
            for lane in 0..<Self.vectorLanes {
                let gate = (vector * Self.vectorLanes + lane) / leftoverStride
                isCandidate[lane] = gate == 2 ? 1 : 0
            }
            return LSTMLeftoverActivation(candidateLanes: isCandidate)
        }
    }
}

/// The activation of each lane of one vector of the leftover block: the
/// candidate gate's lanes take tanh (or the configured activation), the
/// others σ (or the configured recurrent activation). With the standard
/// ones both come from one exp: σ(x) = 1 / (1 + e^−x) and
/// tanh(x) = 2 / (1 + e^−2x) − 1. The exp form keeps σ's relative
/// accuracy near 0, which the forget gate needs (it multiplies the cell
/// state).
public struct LSTMLeftoverActivation: Sendable, Equatable {
    public typealias Vector = SIMD16<Float>
    public let isCandidate: SIMDMask<SIMD16<Int32>>
    /// −1 on σ lanes, −2 on tanh lanes.
    public let exponentScale: Vector
    /// 1 on σ lanes, 2 on tanh lanes.
    public let numerator: Vector
    /// 0 on σ lanes, −1 on tanh lanes.
    public let offset: Vector

    /// `candidateLanes` is 1 where the lane holds the candidate (tanh) gate, else 0.
    public init(candidateLanes: Vector) {
        isCandidate = candidateLanes .== 1
        exponentScale = -1 - candidateLanes
        numerator = 1 + candidateLanes
        offset = -candidateLanes
    }

    @_transparent
    public func callAsFunction<M: MultiplyAdd>(_ x: Vector, _: M.Type) -> Vector {
        let e = VectorMath<M>.exp(exponentScale * x, lowest: -28, highest: 28)
        return numerator / (e + 1) + offset
    }

    /// The configured activations instead.
    @_transparent
    public func callAsFunction<M: MultiplyAdd>(_ x: Vector, gate: Activation, candidate: Activation, _: M.Type) -> Vector {
        VectorMath<M>.apply(gate, x).replacing(with: VectorMath<M>.apply(candidate, x), where: isCandidate)
    }
}
