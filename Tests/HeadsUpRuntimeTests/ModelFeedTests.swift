import Foundation
import HeadsUpData
import HeadsUpPipeline
import HeadsUpRuntime
import HeadsUpTestSupport
import Testing

/// The card's `input.feed` reaches the scorer every mode uses
/// (`RuntimeSetup.scorer`: live, replay, evaluate): a sensor marked "zero"
/// is fed as 0 whatever the device measures. weights/cnn.h5 reads the
/// magnetometer, so feeding it or not changes its score.
@Suite("Model feed")
struct ModelFeedTests {
    func setUp(feed: [String: String]?) throws -> (RuntimeSetup, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let model = directory.path("cnn.h5")
        try FileManager.default.copyItem(atPath: TestEnvironment.path("weights/cnn.h5"), toPath: model)
        let text = try String(contentsOfFile: TestEnvironment.path("weights/cnn.json"), encoding: .utf8)
        var card = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var input = try #require(card["input"] as? [String: Any])
        input["feed"] = feed
        card["input"] = input
        try JSONSerialization.data(withJSONObject: card).write(to: URL(fileURLWithPath: directory.path("cnn.json")))
        var layers = LayeredSettings()
        try layers.set("model", .string(model))
        return (try RuntimeSetup(layers: layers), directory)
    }

    /// A still phone, flat, with a raw magnetometer reading 600 µT off.
    static let window: MotionWindow = {
        var values: [Float] = []
        for channel in SensorChannel.allCases {
            let value: Float =
                switch channel {
                case .accelerationZ: -1
                case .magneticFieldX, .magneticFieldY, .magneticFieldZ: 600
                default: 0.01
                }
            values += [Float](repeating: value, count: 50)
        }
        return MotionWindow(startTime: 0, startGridIndex: 0, length: 50, label: nil, labelIsUniform: true, channelMajorValues: values)
    }()

    @Test func aSensorTheCardMarksZeroIsFedAsZero() throws {
        let (setup, _) = try setUp(feed: ["accelerometer": "measured", "gyroscope": "measured", "magnetometer": "zero"])
        #expect(setup.zeroFed == [.magnetometer])
        let plain = ModelScorer(model: setup.model, layout: setup.layout)
        #expect(setup.scorer.score(Self.window) == plain.score(Self.window.zeroing([.magnetometer])))
        #expect(plain.score(Self.window) != plain.score(Self.window.zeroing([.magnetometer])))
    }

    @Test func aCardWithoutFeedFeedsEverySensor() throws {
        let (setup, _) = try setUp(feed: nil)
        #expect(setup.zeroFed.isEmpty)
        #expect(setup.scorer.score(Self.window) == ModelScorer(model: setup.model, layout: setup.layout).score(Self.window))
    }
}
