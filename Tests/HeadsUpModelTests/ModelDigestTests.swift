import Foundation
import HeadsUpModel
import HeadsUpTestSupport
import Testing

/// A model card's `model.sha256` against the file beside it: HDF5 keeps no
/// checksums, so a flipped weight bit would otherwise load and score
/// differently without a word.
@Suite("Model digests")
struct ModelDigestTests {
    @Test func theDigestMatchesFIPS180sExamples() {
        #expect(SHA256.hex(of: [UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test(arguments: ["model", "cnn", "seed"])
    func eachShippedCardRecordsItsModelsDigest(_ stem: String) throws {
        let card = try ModelCard.load(path: TestEnvironment.path("weights/\(stem).json"))
        #expect(card.modelFile == "\(stem).h5")
        #expect(card.modelSHA256 != nil)
        try card.checkDigest(ofModelAt: TestEnvironment.path("weights/\(stem).h5"))
    }

    @Test func aChangedCopyIsRefusedAndAnotherFileIsNotChecked() throws {
        let directory = try TemporaryDirectory()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.path("weights/model.h5")))
        bytes[bytes.count / 2] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: directory.path("model.h5")))
        try bytes.write(to: URL(fileURLWithPath: directory.path("model-fold0.h5")))
        let card = try ModelCard.load(path: TestEnvironment.path("weights/model.json"))
        #expect(throws: ModelCardError.self) { try card.checkDigest(ofModelAt: directory.path("model.h5")) }
        do { try card.checkDigest(ofModelAt: directory.path("model.h5")) } catch {
            #expect(error.description.contains("does not match the card's model.sha256"), "\(error)")
            #expect(error.description.contains("Copy the model and its card again"))
        }
        try card.checkDigest(ofModelAt: directory.path("model-fold0.h5"))
    }

    @Test func aMalformedDigestIsACardError() throws {
        let text = try String(contentsOfFile: TestEnvironment.path("weights/model.json"), encoding: .utf8)
        let digest = try #require(ModelCard.load(path: TestEnvironment.path("weights/model.json")).modelSHA256)
        #expect(throws: ModelCardError.self) { try ModelCard.parse(text.replacingOccurrences(of: digest, with: "abc"), path: "card.json") }
    }
}
