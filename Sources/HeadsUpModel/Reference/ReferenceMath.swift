import HeadsUpKernels

/// The few operations the reference layers share, written as plainly as
/// possible: these are the definitions the fast kernels must match.
enum ReferenceMath {
    /// x · W for a row vector x of `rows` values and W stored row-major as
    /// [rows, columns] (Keras's kernel layout), plus `bias` when given.
    static func vectorTimesMatrix(_ x: ArraySlice<Float>, _ w: [Float], columns: Int, bias: ArraySlice<Float>? = nil) -> [Float] {
        var result = bias.map(Array.init) ?? [Float](repeating: 0, count: columns)
        for (row, value) in x.enumerated() {
            for column in 0..<columns {
                result[column] += value * w[row * columns + column]
            }
        }
        return result
    }

    /// An activation applied to every value (softmax over the whole array).
    static func activate(_ activation: Activation, _ values: [Float]) -> [Float] {
        var result = values
        result.withUnsafeMutableBufferPointer { activation.apply($0.baseAddress!, count: $0.count, lastAxis: $0.count) }
        return result
    }

    /// The four (LSTM), three (GRU) or one (SimpleRNN) gate blocks of `units` values each.
    static func gate(_ values: [Float], _ index: Int, units: Int) -> [Float] {
        Array(values[(index * units)..<((index + 1) * units)])
    }
}
