import Foundation
import HeadsUpData
import HeadsUpModel
import HeadsUpRuntime
import HeadsUpTestSupport
import Testing

/// A model that loads but cannot score HeadsUp's windows is refused when
/// the runtime is set up, naming the file and why, before a window reaches it.
@Suite("Models that do not fit HeadsUp's windows")
struct ModelFitTests {
    @Test func anotherInputShapeIsNamedWithTheWindowsShape() throws {
        let path = TestEnvironment.path("Tests/Fixtures/keras/gru_tfkeras_h5/model.h5")
        let model = try KerasModelLoader.load(path: path)
        #expect(throws: RuntimeSetupError.self) { try RuntimeSetup.windowLayout(of: model, card: nil, path: path) }
        do { _ = try RuntimeSetup.windowLayout(of: model, card: nil, path: path) } catch {
            #expect(error.description.hasPrefix("\(path): the model takes input \(model.inputShape)"), "\(error)")
            #expect(error.description.contains("windows of 50 samples × 9 channels (450 values)"))
        }
    }

    @Test func theShippedModelsLayoutsComeFromTheirShapeWithoutACard() throws {
        let seed = try KerasModelLoader.load(path: TestEnvironment.path("weights/seed.h5"))
        #expect(try RuntimeSetup.windowLayout(of: seed, card: nil, path: "seed.h5") == .channelMajor)
        let shipped = try KerasModelLoader.load(path: TestEnvironment.path("weights/model.h5"))
        #expect(try RuntimeSetup.windowLayout(of: shipped, card: nil, path: "model.h5") == .timeMajor)
        try RuntimeSetup.checkScores(of: shipped, path: "model.h5")
    }

    @Test func aNegativeVarianceIsCaughtByTheProbeWindows() throws {
        let path = TestEnvironment.path("weights/model.h5")
        var parts = try KerasModelLoader.readParts(path: path)
        let layer = try #require(parts.weights.firstIndex { $0.contains { $0.name.hasSuffix("variance") } })
        let variance = try #require(parts.weights[layer].firstIndex { $0.name.hasSuffix("variance") })
        parts.weights[layer][variance].values = parts.weights[layer][variance].values.map { _ in -4 }
        let model = try KerasModelLoader.assemble(parts)
        #expect(throws: RuntimeSetupError.self) { try RuntimeSetup.checkScores(of: model, path: path) }
        do { try RuntimeSetup.checkScores(of: model, path: path) } catch {
            #expect(error.description.contains("\(path): the model scores a window of 0s as nan"), "\(error)")
        }
    }
}
