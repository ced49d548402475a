import Foundation
import HeadsUpTestSupport
import Testing

@Suite("headsup model")
struct ModelCommandTests {
    let fixtures = TestEnvironment.path("Tests/Fixtures/keras")

    @Test func inspectShowsAKerasLikeSummary() throws {
        let result = try runHeadsUp(["model", "inspect", "\(fixtures)/seed_k231_h5/model.h5"])
        #expect(result.status == 0, "\(result.standardError)")
        let text = result.standardOutput
        #expect(text.contains("Format: legacy .h5 (model.save), Keras 2.3.1"))
        #expect(text.contains("Input: (None, 450)   Output: (None, 1)"))
        #expect(text.contains("lstm_1 (LSTM)"))
        #expect(text.contains("(None, 50, 50)"))
        #expect(text.contains("12,000"))
        #expect(text.contains("Total params: 37,401"))
        #expect(text.contains("Kernels: "))
    }

    /// The shipped model's card says what it learned from and how it does
    /// per carry position, and carries the carry set's CC BY 4.0 credit.
    @Test func inspectShowsTheShippedCardsDataCreditAndPositions() throws {
        let result = try runHeadsUp(["model", "inspect", TestEnvironment.path("weights/model.h5")])
        #expect(result.status == 0, "\(result.standardError)")
        let text = result.standardOutput
        #expect(text.contains("Card: " + TestEnvironment.path("weights/model.json")))
        #expect(text.contains("Data set: phone-motion-v1, 14 training sessions"))
        #expect(text.contains("Data set: carry-positions-v1, 36 training sessions"))
        #expect(text.contains("licence: CC BY 4.0"))
        #expect(text.contains("credit: Contains data from the Oxford step-counter data set"))
        #expect(text.contains("Phones: iPhone, Nexus, Pixel, Samsung"))
        #expect(text.contains("Missing channels: feed 0"))
        for position in ["hands", "pocket", "purse", "armband", "neck-pouch", "swinging-arm"] {
            #expect(text.contains("\n    \(position) "), "\(position)")
        }
    }

    /// HEADSUP_KERNELS picks the level the model runs on; a name the CPU
    /// cannot run is an error that lists the ones it can.
    @Test func theKernelLevelCanBeForcedAndIsShown() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["HEADSUP_KERNELS"] = "baseline"
        let forced = try runHeadsUp(["model", "inspect", "\(fixtures)/seed_k231_h5/model.h5"], environment: environment)
        #expect(forced.status == 0, "\(forced.standardError)")
        #expect(forced.standardOutput.contains("Kernels: baseline"))
        environment["HEADSUP_KERNELS"] = "sse9"
        let unknown = try runHeadsUp(["model", "inspect", "\(fixtures)/seed_k231_h5/model.h5"], environment: environment)
        #expect(unknown.status != 0)
        #expect(unknown.standardError.contains("HEADSUP_KERNELS=sse9 names no kernel level") && unknown.standardError.contains("baseline"))
    }

    /// libhdf5 is loaded only by the process that reads the file; when it
    /// cannot be, the error names the file, what was tried and what to install.
    @Test func aMissingLibhdf5IsAClearErrorNamingTheFile() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["HEADSUP_LIBHDF5"] = "/nonexistent/libhdf5.so.103"
        let result = try runHeadsUp(["model", "inspect", "\(fixtures)/seed_k231_h5/model.h5"], environment: environment)
        #expect(result.status != 0)
        #expect(result.standardError.contains("seed_k231_h5/model.h5"), "\(result.standardError)")
        // The version of the headers it was built with (bookworm: 1.10, libhdf5-103-1; trixie: 1.14, libhdf5-310).
        #expect(result.standardError.contains("needs libhdf5 1."), "\(result.standardError)")
        #expect(result.standardError.contains("the version HeadsUp was built for (Debian: apt install libhdf5-"), "\(result.standardError)")
        #expect(result.standardError.contains("/nonexistent/libhdf5.so.103: not found"), "\(result.standardError)")
        environment["HEADSUP_LIBHDF5"] = "libc.so.6"
        let wrong = try runHeadsUp(["model", "inspect", "\(fixtures)/seed_k231_h5/model.h5"], environment: environment)
        #expect(wrong.status != 0)
        #expect(wrong.standardError.contains("libc.so.6: it has no H5open"), "\(wrong.standardError)")
    }

    @Test func predictReproducesKerasLineByLine() throws {
        let result = try runHeadsUp([
            "model", "predict", "--model", "\(fixtures)/conv_keras3_keras/model.keras", "\(fixtures)/conv_keras3_keras/inputs.csv",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let ours = result.standardOutput.split(separator: "\n").map { $0.split(separator: ",").map { Float(String($0))! } }
        let keras = try String(contentsOfFile: "\(fixtures)/conv_keras3_keras/outputs.csv", encoding: .utf8)
            .split(separator: "\n").map { $0.split(separator: ",").map { Float(String($0))! } }
        #expect(ours.count == keras.count)
        for (a, b) in zip(ours.joined(), keras.joined()) { #expect(abs(a - b) <= 1e-5 * max(1, abs(b))) }
    }

    @Test(arguments: ["conv_keras3_keras/model.keras", "seed_k231_h5/model.h5"])
    func predictWithTheReferenceLayersAgreesWithTheFastPath(model: String) throws {
        let directory = URL(fileURLWithPath: "\(fixtures)/\(model)").deletingLastPathComponent().path
        func outputs(_ extra: [String]) throws -> [Float] {
            let result = try runHeadsUp(["model", "predict", "--model", "\(fixtures)/\(model)", "\(directory)/inputs.csv"] + extra)
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput.split(whereSeparator: { $0 == "\n" || $0 == "," }).map { Float(String($0))! }
        }
        let fast = try outputs([])
        let reference = try outputs(["--reference"])
        #expect(!fast.isEmpty && fast.count == reference.count)
        for (a, b) in zip(fast, reference) { #expect(abs(a - b) <= 1e-5 * max(1, abs(b))) }
    }

    @Test func predictNamesTheBadLine() throws {
        let directory = try TemporaryDirectory()
        let input = try directory.write("in.csv", (0..<64).map { _ in "0.5" }.joined(separator: ",") + "\n1,2,3\n")
        let model = "\(fixtures)/simplernn_tfkeras_h5/model.h5"
        let result = try runHeadsUp(["model", "predict", "--model", model, input])
        #expect(result.status != 0)
        #expect(result.standardError.contains("in.csv:2: expected 64 values (input shape [16, 4]), found 3"))
    }

    @Test func aBadModelFileIsOneClearLine() throws {
        let result = try runHeadsUp(["model", "inspect", "\(fixtures)/bad/unsupported_layer.h5"])
        #expect(result.status != 0)
        #expect(result.standardError.contains("layer class 'LayerNormalization' is not supported"))
        #expect(!result.standardError.contains("Fatal error"))
    }

    /// A damaged file that crashes libhdf5 (a mutated copy of weights/seed.h5:
    /// H5HG_read under H5Aread of a variable-length string) kills only the
    /// child that checks it; the command gets a typed error.
    @Test func aFileThatCrashesLibHDF5IsATypedErrorNotACrash() throws {
        let path = "\(fixtures)/bad/crashes_libhdf5.h5"
        let bare = try runHeadsUp(["model", "check", path])
        #expect(bare.terminationSignal != nil, "the bare load is expected to crash libhdf5: \(bare.standardError.prefix(300))")
        for command in [["model", "inspect", path], ["model", "predict", "--model", path, "/dev/null"], ["config", "show", "--model", path]] {
            let result = try runHeadsUp(command)
            // config show still shows the settings, with the model's problem as a warning.
            #expect(result.terminationSignal == nil && result.status == (command[0] == "config" ? 0 : 1), "\(command)")
            #expect(result.standardError.contains("\(path): the file is corrupt: libhdf5 crashed reading it"), "\(command): \(result.standardError)")
        }
    }

    /// A header claiming a shape of 2^52 values is refused before anything is allocated for it.
    @Test func anImpossibleDatasetShapeIsRefusedBeforeAllocating() throws {
        let result = try runHeadsUp(["model", "check", "\(fixtures)/bad/huge_shape.h5"])
        #expect(result.terminationSignal == nil && result.status == 1)
        #expect(result.standardError.contains("larger than any model HeadsUp runs"), "\(result.standardError)")
    }
}
