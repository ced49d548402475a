import HeadsUpData
import HeadsUpModel
import HeadsUpPipeline

/// A Keras model as the pipeline's scorer, fed the window in the layout it
/// was trained on.
public struct ModelScorer: WindowScorer {
    public let model: KerasModel
    public let layout: WindowLayout

    public init(model: KerasModel, layout: WindowLayout) {
        self.model = model
        self.layout = layout
    }

    public func score(_ window: MotionWindow) -> Double {
        let output = model.predict(window.flattened(layout))
        // One sigmoid unit, or a two-class softmax whose second unit is "hands".
        return Double(output.count >= 2 ? output[1] : output[0])
    }
}
