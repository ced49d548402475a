import Foundation
import HeadsUpModel
import HeadsUpTestSupport
import Testing

/// Broken model files (Tests/Fixtures/keras/bad): each gives a typed error
/// that names the file, the layer and what was expected; never a crash.
struct BadModelFile: Decodable, CustomTestStringConvertible, Sendable {
    var name: String
    var file: String
    var config: String?
    var expect: String
    var testDescription: String { name }

    static let root = TestEnvironment.path("Tests/Fixtures/keras/bad")

    static func all() throws -> [BadModelFile] {
        try JSONDecoder().decode([BadModelFile].self, from: Data(contentsOf: URL(fileURLWithPath: "\(root)/bad.json")))
    }
}

@Suite("Bad model files")
struct BadModelFileTests {
    @Test(arguments: try BadModelFile.all())
    func givesATypedErrorNamingWhatIsWrong(_ bad: BadModelFile) throws {
        let path = "\(BadModelFile.root)/\(bad.file)"
        do {
            _ = try KerasModelLoader.load(path: path, architecture: bad.config.map { "\(BadModelFile.root)/\($0)" })
            Issue.record("\(bad.name) loaded, but it must fail with \(bad.expect)")
        } catch {
            let message = error.description
            #expect(message.contains(bad.file), "the message names the file: \(message)")
            switch (bad.expect, error.problem) {
            case ("not-hdf5", .file(let hdf5)):
                #expect(hdf5.problem == .notHDF5)
            case ("truncated", .file(let hdf5)):
                #expect(message.contains("truncated or damaged"), "\(message)")
                _ = hdf5
            case ("missing-dataset", .missingWeight):
                #expect(error.layer != nil)
                #expect(message.contains("recurrent_kernel"), "\(message)")
            case ("shape-mismatch", .shapeMismatch(_, let expected, let found)):
                #expect(expected == [9, 200] && found == [9, 160], "\(message)")
                #expect(error.layer != nil)
            case ("unsupported-layer", .unsupportedLayer(let className)):
                #expect(className == "LayerNormalization")
                #expect(message.contains("supported: "))
            case ("unsupported-activation", .unsupportedActivation(let name)):
                #expect(name == "mish_custom")
                #expect(error.layer != nil)
            case ("bad-config", .badConfig):
                #expect(message.contains("model config"))
            default:
                Issue.record("\(bad.name): expected \(bad.expect), got: \(message)")
            }
        }
    }

    @Test func aMissingFileAndAWeightsOnlyFileWithoutArchitectureAreExplained() throws {
        do {
            _ = try KerasModelLoader.load(path: "/nonexistent/model.h5")
            Issue.record("must fail")
        } catch {
            #expect(error.description == "/nonexistent/model.h5: not a Keras model file: no such file")
        }
        let weightsOnly = TestEnvironment.path("Tests/Fixtures/keras/bidir_keras3_weights/model.weights.h5")
        do {
            _ = try KerasModelLoader.load(path: weightsOnly)
            Issue.record("must fail")
        } catch {
            #expect(error.description.contains("pass the model's architecture JSON"))
        }
    }

    @Test func aTruncatedArchiveIsDamagedNotACrash() throws {
        let source = TestEnvironment.path("Tests/Fixtures/keras/seed_keras3_keras/model.keras")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: source))
        let directory = try TemporaryDirectory()
        for cut in [bytes.count / 3, bytes.count - 100, 30] {
            let path = directory.path("cut-\(cut).keras")
            try bytes.prefix(cut).write(to: URL(fileURLWithPath: path))
            #expect(throws: ModelLoadError.self) { try KerasModelLoader.load(path: path) }
        }
    }
}
