import HeadsUpData
import HeadsUpTestSupport
import Testing

/// A row of the session format with simple distinct values.
func row(label: Int = 1, time: Double, base: Double = 0) -> String {
    let values = (0..<9).map { String(base + Double($0) / 10) }
    return "\(label),\(time)," + values.joined(separator: ",")
}

@Suite("Session CSV reader")
struct SessionCSVReaderTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func read(_ text: String, options: SessionCSVOptions = .init()) throws -> (samples: [MotionSample], report: SessionReadReport) {
        let path = try directory.write("session.csv", text)
        let reader = try SessionCSVReader(path: path, options: options)
        let samples = try reader.readAll()
        return (samples, reader.report)
    }

    func readError(_ text: String) throws -> SessionCSVError {
        let path = try directory.write("session.csv", text)
        do {
            let reader = try SessionCSVReader(path: path)
            _ = try reader.readAll()
        } catch {
            return error
        }
        Issue.record("expected an error for \(text.debugDescription)")
        throw CancellationError()
    }

    @Test func readsRowsInFileOrderWithLabelsAndChannels() throws {
        let (samples, report) = try read(row(label: 0, time: 10.0) + "\n" + row(label: 1, time: 10.01, base: 0.5) + "\n")
        #expect(samples.count == 2)
        #expect(samples[0].label == .pocket)
        #expect(samples[1].label == .hands)
        #expect(samples[1].time == 10.01)
        #expect(samples[1].acceleration == SIMD3(0.5, 0.6, 0.7))
        #expect(samples[1].rotationRate == SIMD3(0.8, 0.9, 1.0))
        #expect(samples[1].magneticField == SIMD3(1.1, 1.2, 1.3))
        #expect(report.rowsRead == 2)
        #expect(!report.hadHeader)
        #expect(!report.convertedUnits)
    }

    @Test func toleratesCRLFHeaderBlankLinesAndMissingFinalNewline() throws {
        let text = SessionCSVFormat.header + "\r\n" + row(time: 1) + "\r\n\r\n" + row(time: 1.01) + "\r\n" + row(time: 1.02)
        let (samples, report) = try read(text)
        #expect(samples.map(\.time) == [1, 1.01, 1.02])
        #expect(report.hadHeader)
        #expect(samples[2].magneticField.z == 0.8)
    }

    @Test func wrongColumnCountNamesFileAndLine() throws {
        let error = try readError(row(time: 1) + "\n" + "1,2,3\n")
        #expect(error.line == 2)
        #expect(error.column == nil)
        #expect(error.problem == .wrongColumnCount(found: 3))
        #expect(
            error.description.hasSuffix(
                "session.csv:2: expected 11 comma-separated columns (mode,timestamp,acc_x,acc_y,acc_z,gyro_x,gyro_y,gyro_z,mag_x,mag_y,mag_z), found 3"
            ))
    }

    @Test func tooManyColumnsIsAnError() throws {
        let error = try readError(row(time: 1) + ",7\n")
        #expect(error.problem == .wrongColumnCount(found: 12))
    }

    @Test func nonNumberNamesLineAndColumn() throws {
        let error = try readError(row(time: 1) + "\n1,1.01,0.1,abc,0.3,0,0,0,0,0,0\n")
        #expect(error.line == 2)
        #expect(error.column == 4)
        #expect(error.problem == .notANumber("abc"))
        #expect(error.description.hasSuffix("session.csv:2:4: column 4 (acc_y): 'abc' is not a number"))
    }

    @Test(arguments: ["nan", "NaN", "-inf", "inf", "Infinity", "1e999"])
    func nonFiniteValuesAreRejected(value: String) throws {
        let error = try readError("1,1.0,0,0,0,0,0,0,0,0,\(value)\n")
        #expect(error.column == 11)
        #expect(error.problem == .notFinite(value))
        #expect(error.description.contains("column 11 (mag_z)"))
    }

    @Test(arguments: ["", "-", "1.2.3", "0x10", "1e", "--1"])
    func malformedNumbersAreRejected(value: String) throws {
        let error = try readError("1,1.0,\(value),0,0,0,0,0,0,0,0\n")
        #expect(error.column == 3)
        #expect(error.problem == .notANumber(value))
    }

    @Test func labelMustBeZeroOrOne() throws {
        let error = try readError("2,1.0,0,0,0,0,0,0,0,0,0\n")
        #expect(error.column == 1)
        #expect(error.problem == .invalidLabel("2"))
        let word = try readError(row(time: 1) + "\nhands,1.0,0,0,0,0,0,0,0,0,0\n")
        #expect(word.line == 2)
        #expect(word.problem == .invalidLabel("hands"))
    }

    @Test func unknownHeaderIsAnError() throws {
        let error = try readError("label,time,ax,ay,az,gx,gy,gz,mx,my,mz\n" + row(time: 1))
        #expect(error.line == 1)
        #expect(error.problem == .unknownHeader("label,time,ax,ay,az,gx,gy,gz,mx,my,mz"))
    }

    @Test func binaryGarbageGivesLineTooLong() throws {
        let error = try readError(String(repeating: "x", count: 40_000))
        #expect(error.problem == .lineTooLong)
    }

    @Test func missingFileAndDirectoryAreReported() throws {
        #expect(throws: SessionCSVError.self) { try SessionCSVReader(path: directory.path("absent.csv")) }
        do {
            _ = try SessionCSVReader(path: directory.url.path)
            Issue.record("a directory must not open as a session")
        } catch {
            #expect(error.description.hasSuffix("is a directory"))
        }
    }

    /// `--without magnetometer`: a session read as a phone without one
    /// would give it, the other channels untouched.
    @Test func anAbsentSensorIsReadAsZeros() throws {
        let text = row(time: 1, base: 1) + "\n" + row(time: 1.01, base: 2) + "\n"
        let (whole, _) = try read(text)
        let (withoutMagnetometer, _) = try read(text, options: SessionCSVOptions(absentSensors: [.magnetometer]))
        #expect(withoutMagnetometer.allSatisfy { $0.magneticField == .zero })
        #expect(withoutMagnetometer.map(\.acceleration) == whole.map(\.acceleration))
        #expect(withoutMagnetometer.map(\.rotationRate) == whole.map(\.rotationRate))
        let (accelerometerOnly, _) = try read(text, options: SessionCSVOptions(absentSensors: [.gyroscope, .magnetometer]))
        #expect(accelerometerOnly.allSatisfy { $0.rotationRate == .zero && $0.magneticField == .zero })
        #expect(accelerometerOnly.map(\.acceleration) == whole.map(\.acceleration))
        #expect(whole.allSatisfy { $0.magneticField != .zero && $0.rotationRate != .zero })
    }

    @Test func lenientModeSkipsAndCountsMalformedRows() throws {
        let text = [row(time: 1), "1,2", row(time: 1.01), "1,1.02,nan,0,0,0,0,0,0,0,0", row(time: 1.03)].joined(separator: "\n")
        let (samples, report) = try read(text, options: SessionCSVOptions(lenient: true))
        #expect(samples.map(\.time) == [1, 1.01, 1.03])
        #expect(report.skippedRowCount == 2)
        #expect(report.skippedRowErrors.map(\.line) == [2, 4])
        #expect(report.skippedRowErrors[1].column == 3)
    }

    @Test func strictModeKeepsRowsBeforeTheError() throws {
        let path = try directory.write("session.csv", row(time: 1) + "\n" + row(time: 1.01) + "\nbroken\n")
        let reader = try SessionCSVReader(path: path, options: SessionCSVOptions(detectionRowCount: 1))
        #expect(try reader.next()?.time == 1)
        #expect(try reader.next()?.time == 1.01)
        #expect(throws: SessionCSVError.self) { try reader.next() }
    }

    @Test func readsLongFilesAcrossBufferBoundaries() throws {
        let rows = (0..<20_000).map { row(label: $0 % 2, time: 1000 + Double($0) / 100) }
        let (samples, _) = try read(rows.joined(separator: "\n") + "\n")
        #expect(samples.count == 20_000)
        #expect(samples.last?.time == 1000 + 19_999.0 / 100)
        #expect(samples[12_345].label == .hands)
    }
}
