import Foundation
import HeadsUpModel
import Testing

/// A card's account of what the model learned from (data sets, licences and
/// credit, positions, phones, channels) and its per-position figures, as
/// `model inspect` prints them.
@Suite("Model provenance")
struct ModelProvenanceTests {
    static func card(trainedOn: String, byPosition: String) -> String {
        """
        {"format": "headsup-model-card",
         "input": {"layout": "time-major", "shape": [50, 9], "axis_convention": "CoreMotion (iPhone)"},
         "decision": {"threshold": 0.4},
         "data": {"dataset": "phone-motion-v1", "training_sessions": [{"name": "a"}, {"name": "b"}]},
         "trained_on": \(trainedOn),
         "cross_validation": {"scheme": "leave-walkers-out: 2 folds", "by_position": \(byPosition)}}
        """
    }

    static let twoSets = """
        {"data_sets": [
           {"name": "phone-motion-v1", "license": "MIT", "training_sessions": 14, "positions": ["hands", "pocket"],
            "phones": ["iPhone"], "channels": ["acc", "gyro", "mag"]},
           {"name": "carry-positions-v1", "source": "Oxford step-counter", "license": "CC BY 4.0",
            "credit": "Contains data from the Oxford step-counter data set, CC BY 4.0", "training_sessions": 36,
            "positions": ["hands", "purse"], "phones": ["Pixel", "Samsung"], "channels": ["acc"]}],
         "positions": {"purse": {"sessions": 4}, "hands": {"sessions": 20}},
         "phones": ["iPhone", "Pixel", "Samsung"],
         "channels": {"trained_with": "channel dropout", "missing": "feed 0 for a missing channel"}}
        """

    @Test func aBothSetsCardNamesItsDataCreditPositionsPhonesChannelsAndFigures() throws {
        let byPosition = """
            {"threshold": 0.4, "positions": {
               "purse": {"windows": 1364, "called_distracted_at_0.5": 0.2, "called_distracted_at_threshold": 0.25},
               "hands": {"windows": 8402, "called_distracted_at_0.5": 0.99, "called_distracted_at_threshold": 0.995}}}
            """
        let card = try ModelCard.parse(Self.card(trainedOn: Self.twoSets, byPosition: byPosition), path: "model.json")
        let provenance = try #require(card.provenance)
        #expect(provenance.dataSets.map(\.name) == ["phone-motion-v1", "carry-positions-v1"])
        #expect(provenance.dataSets[1].credit == "Contains data from the Oxford step-counter data set, CC BY 4.0")
        #expect(provenance.positions.map(\.name) == ["hands", "purse"])
        #expect(provenance.positions.map(\.sessions) == [20, 4])
        #expect(provenance.figuresThreshold == 0.4)
        #expect(provenance.positionFigures.map(\.position) == ["hands", "purse"])
        // The figures at the card's threshold, not at 0.5.
        #expect(provenance.positionFigures.map(\.calledDistracted) == [0.995, 0.25])
        let text = provenance.summaryLines.joined(separator: "\n")
        #expect(text.contains("Data set: carry-positions-v1, 36 training sessions"))
        #expect(text.contains("licence: CC BY 4.0"))
        #expect(text.contains("credit: Contains data from the Oxford step-counter data set, CC BY 4.0"))
        #expect(text.contains("phones: Pixel, Samsung"))
        #expect(text.contains("channels: acc\n"))
        #expect(text.contains("Positions: hands (20 sessions), purse (4 sessions)"))
        #expect(text.contains("Missing channels: feed 0 for a missing channel"))
        #expect(text.contains("called distracted at 0.40"))
        #expect(text.contains("purse                       25.0 %  of 1364 windows"))
        #expect(text.contains("(cross-validation: leave-walkers-out: 2 folds)"))
    }

    /// A card of one data set (no `trained_on`, CV figures without a
    /// position table) still names its data set, and claims no figures.
    @Test func aOneSetCardNamesItsDataSetOnly() throws {
        let card = try ModelCard.parse(Self.card(trainedOn: "null", byPosition: "null"), path: "model.json")
        let provenance = try #require(card.provenance)
        #expect(provenance.dataSets.map(\.name) == ["phone-motion-v1"])
        #expect(provenance.dataSets[0].trainingSessions == 2)
        #expect(provenance.positionFigures.isEmpty)
        #expect(provenance.figuresThreshold == nil)
        #expect(!provenance.summaryLines.joined().contains("Per position"))
    }

    /// CV figures from a run without a shipped threshold are the ones at 0.5.
    @Test func figuresWithoutAThresholdAreAtOneHalf() throws {
        let byPosition = """
            {"positions": {"armband": {"windows": 10, "called_distracted_at_0.5": 0.1}}}
            """
        let card = try ModelCard.parse(Self.card(trainedOn: Self.twoSets, byPosition: byPosition), path: "model.json")
        let provenance = try #require(card.provenance)
        #expect(provenance.figuresThreshold == 0.5)
        #expect(provenance.positionFigures == [.init(position: "armband", windows: 10, calledDistracted: 0.1)])
    }

    /// A card that splits the positions by pose prints a pose column, the
    /// recorded poses before the synthesised ones, and says what
    /// "synthesised" means.
    @Test func rowsByPoseGiveThePoseColumnAndMarkTheSynthesisedOnes() throws {
        let byPosition = """
            {"threshold": 0.4,
             "positions": {"hands": {"windows": 30, "called_distracted_at_threshold": 0.9},
                           "pocket": {"windows": 20, "called_distracted_at_threshold": 0.05}},
             "rows": [
               {"position": "hands", "pose": "upright", "source": "synthesised", "windows": 10, "called_distracted_at_threshold": 0.5},
               {"position": "hands", "pose": "texting", "source": "recorded", "windows": 10, "called_distracted_at_threshold": 0.99},
               {"position": "pocket", "pose": "front", "source": "recorded", "windows": 10, "called_distracted_at_threshold": 0.1},
               {"position": "pocket", "pose": "back", "source": "recorded", "windows": 10, "called_distracted_at_threshold": 0.0}]}
            """
        let card = try ModelCard.parse(Self.card(trainedOn: Self.twoSets, byPosition: byPosition), path: "model.json")
        let figures = try #require(card.provenance).positionFigures
        #expect(figures.map(\.position) == ["hands", "hands", "pocket", "pocket"])
        #expect(figures.map(\.pose) == ["texting", "upright", "front", "back"])
        #expect(figures.map(\.synthesised) == [false, true, false, false])
        #expect(figures.map(\.calledDistracted) == [0.99, 0.5, 0.1, 0.0])
        let text = try #require(card.provenance).summaryLines.joined(separator: "\n")
        #expect(text.contains("Per position and pose, held-out cross-validation windows called distracted at 0.40"))
        #expect(text.contains("hands                      upright (synthesised)                                   50.0 %  of 10 windows"))
        #expect(text.contains("no recording of it was used"))
    }
}
