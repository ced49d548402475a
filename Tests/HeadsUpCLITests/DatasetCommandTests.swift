import Foundation
import HeadsUpTestSupport
import Testing

@Suite("headsup dataset")
struct DatasetCommandTests {
    let datasets = TestEnvironment.path("datasets/phone-motion-v1")

    @Test func statsPrintsTheReadmeTableAsMarkdown() throws {
        let result = try runHeadsUp(["dataset", "stats", "--format", "markdown", datasets])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        #expect(lines.count == 20)
        #expect(
            lines[0]
                == "| file | rows | duration s | rate Hz | labels | label changes | gaps > 0.1 s | max gap s | backwards steps | dropped | skipped |")
        #expect(lines.contains("| data_sensors_data_18 | 3404 | 608 | 98.0 | 0 | 0 | 13 | 574.7 | 28 | 55 | 0 |"))
        #expect(lines.contains("| data_sensors_data_11 | 37751 | 382 | 99.6 | 0 (+1 stray 1) | 1 | 1 | 2.81 | 8 | 27 | 0 |"))
        #expect(lines.contains("| data_new_20190530_174651_1 | 30421 | 356 | 99.4 | 1 | 0 | 27 | 51.6 | 30 | 46 | 0 |"))
    }

    @Test func statsKeepsGoingPastABadFileAndFailsAtTheEnd() throws {
        let directory = try TemporaryDirectory()
        let bad = try directory.write("bad.csv", "1,1.0,0,0,0\n")
        let good = TestEnvironment.path("datasets/phone-motion-v1/sessions/data_sensors_data_4.csv")
        let result = try runHeadsUp(["dataset", "stats", bad, good])
        #expect(result.status == 1)
        #expect(result.standardOutput.contains("data_sensors_data_4"))
        #expect(result.standardError.contains("bad.csv:1: expected 11 comma-separated columns"))
    }

    @Test func statsSaysWhenItConvertedUnits() throws {
        let directory = try TemporaryDirectory()
        let rows = (0..<100).map { "1,\(1_700_000_000_000 + $0 * 20),0.2,0.1,9.81,0,0,0,1,2,3" }
        let path = try directory.write("android.csv", rows.joined(separator: "\n"))
        let result = try runHeadsUp(["dataset", "stats", path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.contains("note: android: timestamps read as milliseconds"))
        #expect(result.standardOutput.contains("note: android: acceleration read as m/s²"))
        #expect(result.standardOutput.contains(" 50.0 "))
        let forced = try runHeadsUp(["dataset", "stats", "--time-unit", "ms", "--accel-unit", "g", "--format", "json", path])
        #expect(forced.standardOutput.contains("\"accelerationUnit\" : \"g\""))
    }

    @Test func windowsPrintsOneLinePerWindowInTheChosenLayout() throws {
        let path = TestEnvironment.path("datasets/phone-motion-v1/sessions/data_sensors_data_4.csv")
        let timeMajor = try runHeadsUp(["dataset", "windows", "--hop", "50", path])
        let channelMajor = try runHeadsUp(["dataset", "windows", "--hop", "50", "--layout", "channel-major", path])
        #expect(timeMajor.status == 0 && channelMajor.status == 0)
        let a = timeMajor.standardOutput.split(separator: "\n")
        let b = channelMajor.standardOutput.split(separator: "\n")
        #expect(a.count == b.count && a.count > 50)
        let first = a[0].split(separator: ",")
        let second = b[0].split(separator: ",")
        #expect(first.count == 453)
        #expect(first[1] == "0" && first[2] == "1")
        // time-major t·9 + c  ==  channel-major c·50 + t
        #expect(first[3 + 7 * 9 + 4] == second[3 + 4 * 50 + 7])
        #expect(timeMajor.standardError.contains("windows"))
    }

    @Test func everyCommandHasHelpAndTheToolHasAVersion() throws {
        for command in [[], ["dataset"], ["dataset", "stats"], ["dataset", "windows"]] {
            let result = try runHeadsUp(command + ["--help"])
            #expect(result.status == 0)
            #expect(result.standardOutput.contains("USAGE:"), "\(command)")
        }
        let version = try runHeadsUp(["--version"])
        #expect(version.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3)
    }
}

@Suite("headsup dataset --lenient")
struct LenientDatasetTests {
    @Test func lenientStatsCountsAndShowsTheSkippedRows() throws {
        let directory = try TemporaryDirectory()
        let rows = (0..<50).map { index in
            index == 7 ? "1,oops,0,0,0,0,0,0,0,0,0" : "1,\(1000 + Double(index) / 100),0,0,-1,0,0,0,1,2,3"
        }
        let path = try directory.write("dirty.csv", rows.joined(separator: "\n"))
        let strict = try runHeadsUp(["dataset", "stats", path])
        #expect(strict.status == 1)
        #expect(strict.standardError.contains("dirty.csv:8:2: column 2 (timestamp): 'oops' is not a number"))
        let lenient = try runHeadsUp(["dataset", "stats", "--lenient", "--format", "json", path])
        #expect(lenient.status == 0)
        #expect(lenient.standardOutput.contains("\"skippedRows\" : 1"))
        #expect(lenient.standardOutput.contains("\"rows\" : 49"))
        #expect(lenient.standardError.contains("warning: dirty: skipped 1 malformed rows"))
    }
}
