/// A weight matrix [rows × columns] laid out row-major with each row padded
/// to a whole number of SIMD lanes, so kernels load and store full vectors
/// without tail handling. Padding columns hold zeros. Rows start on cache
/// lines when `stride` is a multiple of 16 floats (it always is).
public struct PackedMatrix: Sendable {
    public static let lanes = 16
    public let rows: Int
    public let columns: Int
    /// Floats from one row to the next (columns rounded up to `lanes`).
    public let stride: Int
    public let values: AlignedFloats

    public init(rows: Int, columns: Int, rowMajor source: [Float]) {
        precondition(source.count == rows * columns)
        self.rows = rows
        self.columns = columns
        stride = Self.paddedWidth(columns)
        let values = AlignedFloats(zeros: rows * stride)
        for row in 0..<rows {
            for column in 0..<columns { values[row * stride + column] = source[row * columns + column] }
        }
        self.values = values
    }

    /// `columns` rounded up to whole vectors.
    public static func paddedWidth(_ columns: Int) -> Int { (columns + lanes - 1) / lanes * lanes }
}

/// A bias row padded like ``PackedMatrix`` (zeros when the layer has none).
public func paddedBias(_ bias: [Float]?, columns: Int) -> [Float] {
    var padded = [Float](repeating: 0, count: PackedMatrix.paddedWidth(columns))
    if let bias { for i in 0..<columns { padded[i] = bias[i] } }
    return padded
}
