import Foundation
import HeadsUpModel
import HeadsUpTestSupport
import Testing

/// A weight that is not a number loads as an error naming the layer, the
/// weight and the index: such a model would score NaN, which reads as
/// "never distracted".
@Suite("Damaged weights")
struct DamagedWeightTests {
    @Test(arguments: [Float.nan, .infinity, -.infinity])
    func aNonFiniteWeightIsRefusedWithItsPlace(_ bad: Float) throws {
        let path = TestEnvironment.path("weights/model.h5")
        var parts = try KerasModelLoader.readParts(path: path)
        let layer = try #require(parts.weights.firstIndex { !$0.isEmpty && $0[0].name.contains("lstm") })
        parts.weights[layer][0].values[7] = bad
        do {
            _ = try KerasModelLoader.assemble(parts)
            Issue.record("a model with \(bad) in a weight loaded")
        } catch {
            #expect(error.description.contains(path))
            #expect(error.description.contains("weight '\(parts.weights[layer][0].name)' holds \(bad) at index 7"), "\(error)")
            #expect(error.description.contains("Copy the model again, or re-train it"))
        }
    }
}

/// A layer size of the wrong type or out of range is named as such, not as missing.
@Suite("Layer sizes in a config")
struct LayerSizeTests {
    @Test(arguments: ["8.5", "\"eight\"", "-6", "99999999999", "0"])
    func aBadUnitsValueIsNamed(_ value: String) throws {
        let folder = TestEnvironment.path("Tests/Fixtures/keras/bidir_keras3_weights")
        let config = try String(contentsOfFile: folder + "/model.json", encoding: .utf8)
        let directory = try TemporaryDirectory()
        let bad = try directory.write("model.json", config.replacingOccurrences(of: "\"units\": 6", with: "\"units\": \(value)"))
        #expect(throws: ModelLoadError.self) { try KerasModelLoader.load(path: folder + "/model.weights.h5", architecture: bad) }
        do { _ = try KerasModelLoader.load(path: folder + "/model.weights.h5", architecture: bad) } catch {
            #expect(error.description.contains("'units' must be a whole number from 1 to 16777216"), "\(error)")
        }
    }
}
