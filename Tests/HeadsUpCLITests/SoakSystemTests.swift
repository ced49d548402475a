import Foundation
import HeadsUpTestSupport
import Testing

/// 24 hours of simulated data through the pipeline at --speed max: memory
/// stays flat and nothing is dropped. Uses the release build (make test
/// builds it first), where a day of data takes seconds.
@Suite("Soak")
struct SoakSystemTests {
    static let release = TestEnvironment.path(".build/release/headsup")

    /// `replay --repeats N --json`'s soak object.
    struct Figures: Decodable {
        var hoursOfData: Double, residentMbAtStart: Double, residentMbAtEnd: Double, windowsSkipped: Int, samples: Int, warnings: Int
    }

    func soak(repeats: Int) throws -> Figures {
        let result = try runProcess(
            Self.release,
            [
                "replay", TestEnvironment.path("datasets/scenarios/crossing-hands"), "--repeats", String(repeats),
                "--model", TestEnvironment.path("weights/model.h5"), "--no-desktop", "--json",
            ])
        #expect(result.status == 0, "\(result.standardError)")
        let line = try #require(result.standardError.split(separator: "\n").first { $0.hasPrefix("{\"soak\"") })
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let figures = try #require(try decoder.decode([String: Figures].self, from: Data(line.utf8))["soak"])
        let warnings = result.standardOutput.components(separatedBy: "\"event\":\"warning\"").count - 1
        #expect(figures.warnings == warnings, "the summary counts the warnings printed")
        return figures
    }

    @Test func aDayOfDataKeepsMemoryFlatAndDropsNothing() throws {
        try requireCapability(FileManager.default.isExecutableFile(atPath: Self.release), "no release build at \(Self.release) (make test builds it)")
        let short = try soak(repeats: 20)
        let day = try soak(repeats: 1600)
        print(
            "soak: \(day.hoursOfData) h; resident memory \(day.residentMbAtStart) MB at start, \(day.residentMbAtEnd) MB at end "
                + "(20 repeats: \(short.residentMbAtEnd) MB)")
        #expect(day.hoursOfData >= 24)
        #expect(day.windowsSkipped == 0)
        #expect(day.samples >= 1600 * 2750, "every sample of every repeat reached the pipeline")
        #expect(day.warnings == 1600, "one warning per walk, every walk")
        #expect(day.residentMbAtEnd - short.residentMbAtEnd < 2, "memory after a day ≈ memory after 20 minutes")
        #expect(day.residentMbAtEnd - day.residentMbAtStart < 10)
    }
}
