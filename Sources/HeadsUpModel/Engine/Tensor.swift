/// A dense row-major Float32 array with a leading batch dimension:
/// `batchSize` examples, each of shape `exampleShape`.
public struct Tensor: Sendable, Equatable {
    /// Examples: the leading dimension.
    public var batchSize: Int
    /// Shape of one example. Kept apart from the batch size so that a layer
    /// hands on its stored output shape instead of building a new array
    /// for every call.
    public var exampleShape: [Int]
    public var values: [Float]

    public init(batch: Int, exampleShape: [Int], values: [Float]) {
        precondition(exampleShape.reduce(batch, *) == values.count, "tensor values do not fill shape \([batch] + exampleShape)")
        batchSize = batch
        self.exampleShape = exampleShape
        self.values = values
    }

    public init(shape: [Int], values: [Float]) {
        self.init(batch: shape[0], exampleShape: Array(shape.dropFirst()), values: values)
    }

    public init(zeros shape: [Int]) {
        self.init(shape: shape, values: [Float](repeating: 0, count: shape.reduce(1, *)))
    }

    /// The whole shape, batch first.
    public var shape: [Int] { [batchSize] + exampleShape }
    /// Values per example.
    public var exampleCount: Int { exampleShape.reduce(1, *) }
}
