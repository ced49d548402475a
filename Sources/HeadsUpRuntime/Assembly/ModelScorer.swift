import HeadsUpData
import HeadsUpModel
import HeadsUpPipeline

/// A Keras model as the pipeline's scorer, fed the window in the layout it
/// was trained on, with the sensors its card does not read at 0
/// (`input.feed`): every mode that scores (live, replay, evaluate) goes
/// through here, so each feeds the model what it was trained on.
public struct ModelScorer: WindowScorer {
    public let model: KerasModel
    public let layout: WindowLayout
    /// Sensors fed as 0 whatever the device measures.
    public let zeroed: Set<AbsentSensor>

    public init(model: KerasModel, layout: WindowLayout, zeroed: Set<AbsentSensor> = []) {
        self.model = model
        self.layout = layout
        self.zeroed = zeroed
    }

    public func score(_ window: MotionWindow) -> Double {
        let output = model.predict(window.zeroing(zeroed).flattened(layout))
        // One sigmoid unit, or a two-class softmax whose second unit is "hands".
        return Double(output.count >= 2 ? output[1] : output[0])
    }
}
