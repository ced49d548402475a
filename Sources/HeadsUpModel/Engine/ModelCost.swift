import HeadsUpKernels

/// Multiply-adds one example costs, counted from the layers, for
/// benchmarks to relate time to work.
package enum ModelCost {
    package static func multiplyAdds(of model: KerasModel) -> Int {
        var shape = model.inputShape
        var total = 0
        for layer in model.layers {
            total += multiplyAdds(of: layer, inputShape: shape)
            shape = layer.outputShape
        }
        return total
    }

    static func multiplyAdds(of layer: any InferenceLayer, inputShape: [Int]) -> Int {
        switch layer {
        case let dense as DenseLayer:
            return inputShape.dropLast().reduce(1, *) * dense.inputWidth * dense.units
        case let recurrent as RecurrentLayer:
            let width = recurrent.cell.gateCount * recurrent.units
            return recurrent.steps * (recurrent.inputWidth + recurrent.units) * width
        case let bidirectional as BidirectionalLayer:
            return multiplyAdds(of: bidirectional.forwardLayer, inputShape: inputShape)
                + multiplyAdds(of: bidirectional.backwardLayer, inputShape: inputShape)
        case let convolution as Conv1DLayer:
            return convolution.outputSteps * convolution.kernelSize * convolution.channels * convolution.filters
        case let distributed as TimeDistributedLayer:
            return distributed.steps * multiplyAdds(of: distributed.inner, inputShape: Array(inputShape.dropFirst()))
        default:
            return 0
        }
    }
}
