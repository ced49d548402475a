/// A dense row-major Float32 array with a leading batch dimension:
/// `shape[0]` examples, each of shape `shape.dropFirst()`.
public struct Tensor: Sendable, Equatable {
    public var shape: [Int]
    public var values: [Float]

    public init(shape: [Int], values: [Float]) {
        precondition(shape.reduce(1, *) == values.count, "tensor values do not fill shape \(shape)")
        self.shape = shape
        self.values = values
    }

    public init(zeros shape: [Int]) {
        self.shape = shape
        values = [Float](repeating: 0, count: shape.reduce(1, *))
    }

    public var batchSize: Int { shape[0] }
    /// Shape of one example.
    public var exampleShape: [Int] { Array(shape.dropFirst()) }
    /// Values per example.
    public var exampleCount: Int { shape.dropFirst().reduce(1, *) }
}
