import Foundation
import HeadsUpModel
import HeadsUpTestSupport
import Testing

/// What a child process hands over instead of the file: the same model, and
/// bytes that do not add up are an error.
@Suite("Model parts")
struct ModelPartsTests {
    @Test(arguments: ["weights/seed.h5", "Tests/Fixtures/keras/conv_keras3_keras/model.keras"])
    func partsThroughBytesGiveTheSameModel(_ relative: String) throws {
        let path = TestEnvironment.path(relative)
        let parts = try KerasModelLoader.readParts(path: path)
        let bytes = parts.encoded()
        #expect(try ModelParts.decode(bytes, path: path) == parts)
        let direct = try KerasModelLoader.load(path: path)
        let handed = try KerasModelLoader.assemble(try ModelParts.decode(bytes, path: path))
        let input = (0..<direct.inputCount).map { Float(($0 * 37) % 17) / 17 - 0.5 }
        #expect(handed.predict(input) == direct.predict(input))
        #expect(handed.info.format == direct.info.format && handed.info.kerasVersion == direct.info.kerasVersion)
    }

    @Test func damagedBytesAreATypedError() throws {
        let path = TestEnvironment.path("weights/seed.h5")
        let bytes = try KerasModelLoader.readParts(path: path).encoded()
        for damaged in [Array(bytes.prefix(bytes.count - 1)), Array(bytes.prefix(30)), bytes + [0], [UInt8](repeating: 7, count: 100)] {
            #expect(throws: ModelLoadError.self) { try ModelParts.decode(damaged, path: path) }
        }
    }
}
