import Foundation
import HeadsUpRuntime
import HeadsUpTestSupport
import Testing

@Suite("Bundled data: found from the binary's prefix, XDG_DATA_DIRS or the source tree")
struct BundledDataTests {
    @Test func theBinarysPrefixComesFirstThenXDGDataDirsThenTheWorkingDirectory() throws {
        let root = try TemporaryDirectory()
        for folder in ["prefix/bin", "prefix/share/headsup/weights", "xdg/headsup/weights", "xdg/headsup/datasets/scenarios/walk", "cwd/weights"] {
            try FileManager.default.createDirectory(atPath: root.path(folder), withIntermediateDirectories: true)
        }
        _ = try root.write("prefix/share/headsup/weights/model.h5", "installed")
        _ = try root.write("xdg/headsup/weights/model.h5", "xdg")
        _ = try root.write("xdg/headsup/weights/seed.h5", "xdg")
        _ = try root.write("cwd/weights/cnn.h5", "source")
        let data = BundledData.forThisProcess(
            executable: root.path("prefix/bin/headsup"), environment: ["XDG_DATA_DIRS": root.path("xdg")], workingDirectory: root.path("cwd"))
        #expect(try data.locate("weights/model.h5") == root.path("prefix/share/headsup/weights/model.h5"))
        #expect(try data.locate("weights/seed.h5") == root.path("xdg/headsup/weights/seed.h5"))
        #expect(try data.locate("weights/cnn.h5") == root.path("cwd/weights/cnn.h5"))
        #expect(try data.locate("datasets/scenarios/walk") == root.path("xdg/headsup/datasets/scenarios/walk"))
    }

    @Test func nothingFoundListsEveryPlaceLooked() throws {
        let root = try TemporaryDirectory()
        let data = BundledData.forThisProcess(executable: root.path("bin/headsup"), environment: [:], workingDirectory: root.path("cwd"))
        do {
            _ = try data.locate("weights/model.h5")
            Issue.record("found a model that is not there")
        } catch {
            for place in [root.path("share/headsup"), "/usr/local/share/headsup", "/usr/share/headsup", root.path("cwd")] {
                #expect(error.description.contains(place), "\(error)")
            }
            #expect(error.description.contains("--model FILE"))
        }
    }
}
