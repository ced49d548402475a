import Foundation
import HeadsUpData
import HeadsUpTestSupport
import Testing

/// One row of the table in datasets/phone-motion-v1/README.md.
struct ReadmeTableRow {
    var file: String
    var rows: Int
    var duration: Int
    var labels: String
    var gaps: Int
    var maximumGap: String
    var backwardSteps: Int
}

func readmeTable() throws -> [ReadmeTableRow] {
    let readme = try String(contentsOfFile: TestEnvironment.path("datasets/phone-motion-v1/README.md"), encoding: .utf8)
    return readme.split(separator: "\n").filter { $0.hasPrefix("| data") }.map { line in
        let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        return ReadmeTableRow(
            file: cells[0], rows: Int(cells[1])!, duration: Int(cells[2])!, labels: cells[3], gaps: Int(cells[4])!,
            maximumGap: cells[5], backwardSteps: Int(cells[6])!)
    }
}

func sessionPath(_ name: String) -> String {
    TestEnvironment.path("datasets/phone-motion-v1/sessions/\(name).csv")
}

@Suite("Real sessions from datasets/")
struct RealSessionTests {
    @Test func statisticsReproduceTheDatasetReadmeTable() throws {
        let table = try readmeTable()
        #expect(table.count == 18)
        for expected in table {
            let reader = try SessionCSVReader(path: sessionPath(expected.file))
            var statistics = SessionStatistics()
            while let sample = try reader.next() { statistics.add(sample) }
            #expect(statistics.rowCount == expected.rows, "\(expected.file)")
            #expect(Int(statistics.duration.rounded()) == expected.duration, "\(expected.file)")
            #expect(statistics.gapCount == expected.gaps, "\(expected.file)")
            #expect(statistics.backwardStepCount == expected.backwardSteps, "\(expected.file)")
            let decimals = statistics.largestGap < 10 ? 2 : 1
            let scale = pow(10.0, Double(decimals))
            let printed = (statistics.largestGap * scale).rounded() / scale
            #expect(abs(printed - Double(expected.maximumGap)!) < 1e-9, "\(expected.file)")
            let majority = try #require(statistics.majorityLabel)
            #expect(expected.labels.hasPrefix("\(majority.rawValue)"), "\(expected.file)")
            #expect(expected.labels.contains("stray") == (statistics.minorityRowCount == 1), "\(expected.file)")
            #expect(statistics.effectiveRate > 95 && statistics.effectiveRate < 101, "\(expected.file)")
        }
    }

    @Test func manifestMatchesTheFiles() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: TestEnvironment.path("datasets/phone-motion-v1/manifest.json")))
        let manifest = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let sessions = try #require(manifest["sessions"] as? [[String: Any]])
        #expect(sessions.count == 18)
        var testLabels: Set<Int> = []
        for session in sessions {
            let file = try #require(session["file"] as? String)
            let reader = try SessionCSVReader(path: TestEnvironment.path("datasets/phone-motion-v1/\(file)"))
            var statistics = SessionStatistics()
            while let sample = try reader.next() { statistics.add(sample) }
            #expect(statistics.rowCount == session["rows"] as? Int)
            #expect(statistics.majorityLabel?.rawValue == session["label"] as? Int)
            #expect(statistics.minorityRowCount == session["stray_rows"] as? Int)
            if session["split"] as? String == "test" { testLabels.insert(session["label"] as! Int) }
        }
        #expect(testLabels == [0, 1], "the test split must hold both labels")
    }

    @Test func aRealSessionBecomesFiftyHertzWindowsThatNeverCrossAGap() throws {
        // data_sensors_data_2: pocket, then one stray hands row 4.69 s later.
        let reader = try SessionWindowReader(path: sessionPath("data_sensors_data_2"), windowing: .init(hop: 50))
        let windows = try reader.readAll()
        #expect(reader.stream.resampler.inputCount == 12_181)
        #expect(reader.stream.resampler.droppedCount == 28)
        #expect(reader.stream.resampler.segmentCount == 2)
        #expect(windows.allSatisfy { $0.label == .pocket && $0.labelIsUniform })
        let covered = Double(reader.stream.resampler.outputCount) / 50
        #expect(covered > 120 && covered < 123)
        #expect(windows.count == reader.stream.resampler.outputCount / 50)
        for (a, b) in zip(windows, windows.dropFirst()) {
            #expect(b.startGridIndex - a.startGridIndex == 50)
        }
        // Phone in a pocket: gravity is there, about 1 g.
        let first = windows[0]
        var magnitude = 0.0
        for t in 0..<50 {
            let x = Double(first[.accelerationX, t])
            let y = Double(first[.accelerationY, t])
            let z = Double(first[.accelerationZ, t])
            magnitude += (x * x + y * y + z * z).squareRoot() / 50
        }
        #expect(magnitude > 0.5 && magnitude < 2)
    }

    @Test func gridValuesInterpolateTheRawRows() throws {
        let raw = try SessionCSVReader(path: sessionPath("data_sensors_data_3")).readAll()
        let reader = try SessionWindowReader(path: sessionPath("data_sensors_data_3"), windowing: .init(hop: 50))
        let window = try #require(try reader.next())
        for t in [0, 17, 49] {
            let time = window.startTime + Double(t) / 50
            let after = try #require(raw.firstIndex { $0.time >= time })
            let expected = after == 0 ? raw[0] : MotionSample.interpolate(raw[after - 1], raw[after], at: time)
            #expect(window[.magneticFieldY, t] == Float(expected.magneticField.y))
            #expect(window[.rotationRateX, t] == Float(expected.rotationRate.x))
        }
    }
}
