/// A dense row-major Float32 array with a leading batch dimension:
/// `batchSize` examples, each of shape `exampleShape`.
package struct Tensor: Sendable, Equatable {
    /// Examples: the leading dimension.
    package var batchSize: Int
    /// Shape of one example. Kept apart from the batch size so that a layer
    /// hands on its stored output shape instead of building a new array
    /// for every call.
    package var exampleShape: [Int]
    package var values: [Float]

    package init(batch: Int, exampleShape: [Int], values: [Float]) {
        precondition(exampleShape.reduce(batch, *) == values.count, "tensor values do not fill shape \([batch] + exampleShape)")
        batchSize = batch
        self.exampleShape = exampleShape
        self.values = values
    }

    package init(shape: [Int], values: [Float]) {
        self.init(batch: shape[0], exampleShape: Array(shape.dropFirst()), values: values)
    }

    package init(zeros shape: [Int]) {
        self.init(shape: shape, values: [Float](repeating: 0, count: shape.reduce(1, *)))
    }

    /// The whole shape, batch first.
    package var shape: [Int] { [batchSize] + exampleShape }
    /// Values per example.
    package var exampleCount: Int { exampleShape.reduce(1, *) }
}
