import HeadsUpModel
import Testing

/// The card's `input.feed`: which sensors the runtime feeds as 0 (the
/// magnetometer, whose raw hard-iron offset differs on every phone).
@Suite("Model card feed")
struct ModelCardFeedTests {
    static func card(feed: String?) -> String {
        """
        {"format": "headsup-model-card",
         "input": {"layout": "time-major", "shape": [50, 9], "axis_convention": "CoreMotion (iPhone)"\(feed.map { ", \"feed\": \($0)" } ?? "")},
         "decision": {"threshold": 0.4}}
        """
    }

    @Test func aCardWithoutFeedReadsEverySensor() throws {
        #expect(try ModelCard.parse(Self.card(feed: nil), path: "model.json").zeroFedSensors == [])
        #expect(try ModelCard.parse(Self.card(feed: "null"), path: "model.json").zeroFedSensors == [])
    }

    @Test func zeroSensorsAreListed() throws {
        let card = try ModelCard.parse(
            Self.card(feed: #"{"accelerometer": "measured", "gyroscope": "measured", "magnetometer": "zero"}"#), path: "model.json")
        #expect(card.zeroFedSensors == ["magnetometer"])
        let both = try ModelCard.parse(Self.card(feed: #"{"magnetometer": "zero", "gyroscope": "zero"}"#), path: "model.json")
        #expect(both.zeroFedSensors == ["gyroscope", "magnetometer"])
    }

    @Test(arguments: [
        #"{"accelerometer": "zero"}"#, #"{"barometer": "zero"}"#, #"{"magnetometer": "off"}"#, #"{"magnetometer": 0}"#, #"["magnetometer"]"#,
    ])
    func aBadFeedIsRefusedWithWhatToWrite(_ feed: String) {
        #expect(throws: ModelCardError.self) { try ModelCard.parse(Self.card(feed: feed), path: "model.json") }
        do {
            _ = try ModelCard.parse(Self.card(feed: feed), path: "model.json")
        } catch {
            #expect(error.description.contains("input.feed"))
        }
    }
}
