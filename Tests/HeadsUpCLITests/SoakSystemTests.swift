import Foundation
import HeadsUpTestSupport
import Testing

/// 24 hours of simulated data through the pipeline at --speed max: memory
/// stays flat and nothing is dropped. Uses the release build (make test
/// builds it first), where a day of data takes seconds.
@Suite("Soak")
struct SoakSystemTests {
    static let release = TestEnvironment.path(".build/release/headsup")

    struct Figures {
        var hours: Double, startMB: Double, endMB: Double, skipped: Int, samples: Int, warnings: Int
    }

    func soak(repeats: Int) throws -> Figures {
        let result = try runProcess(
            Self.release,
            [
                "replay", TestEnvironment.path("datasets/scenarios/crossing-hands"), "--repeats", String(repeats),
                "--model", TestEnvironment.path("weights/model.h5"), "--no-desktop", "--json",
            ])
        #expect(result.status == 0, "\(result.standardError)")
        let line = try #require(result.standardError.split(separator: "\n").first { $0.hasPrefix("soak:") }.map(String.init))
        let numbers = line.split(whereSeparator: { " ,;".contains($0) }).compactMap { Double($0) }
        // soak: H h of data in S s; resident memory A MB at start, B MB at end; K windows skipped, N samples
        let warnings = result.standardOutput.components(separatedBy: "\"event\":\"warning\"").count - 1
        return Figures(
            hours: numbers[0], startMB: numbers[2], endMB: numbers[3], skipped: Int(numbers[4]), samples: Int(numbers[5]), warnings: warnings)
    }

    @Test func aDayOfDataKeepsMemoryFlatAndDropsNothing() throws {
        try requireCapability(FileManager.default.isExecutableFile(atPath: Self.release), "no release build at \(Self.release) (make test builds it)")
        let short = try soak(repeats: 20)
        let day = try soak(repeats: 1600)
        print("soak: \(day.hours) h; resident memory \(day.startMB) MB at start, \(day.endMB) MB at end (20 repeats: \(short.endMB) MB)")
        #expect(day.hours >= 24)
        #expect(day.skipped == 0)
        #expect(day.samples >= 1600 * 2750, "every sample of every repeat reached the pipeline")
        #expect(day.warnings == 1600, "one warning per walk, every walk")
        #expect(day.endMB - short.endMB < 2, "memory after a day ≈ memory after 20 minutes")
        #expect(day.endMB - day.startMB < 10)
    }
}
