import HeadsUpSystem

/// How to read a session file.
public struct SessionCSVOptions: Sendable, Hashable {
    /// Skip malformed rows (and count them) instead of stopping at the first.
    public var lenient: Bool
    /// Force the timestamp unit; `nil` detects it from the first rows.
    public var timeUnit: TimeUnit?
    /// Force the accelerometer unit; `nil` detects it from the first rows.
    public var accelerationUnit: AccelerationUnit?
    /// How many rows unit detection looks at before deciding.
    public var detectionRowCount: Int
    /// The convention the file was recorded in; `nil` guesses it: Android
    /// (and IIO) when the acceleration is in m/s², CoreMotion when in g.
    public var sourceConvention: AxisConvention?
    /// The convention to deliver (the model's); `nil` leaves the data as recorded.
    public var targetConvention: AxisConvention?
    /// Sensors to read as a device without them would give them: zeros.
    public var absentSensors: Set<AbsentSensor>
    /// Read the session as another device (calibration, pose, rate) would
    /// have recorded it (`evaluate --perturb`); applied after the unit and
    /// axis conversion, before `absentSensors`. A rate is applied by
    /// ``SessionStream``.
    public var perturbation: SensorPerturbation? = nil

    public init(
        lenient: Bool = false, timeUnit: TimeUnit? = nil, accelerationUnit: AccelerationUnit? = nil,
        detectionRowCount: Int = 200, sourceConvention: AxisConvention? = nil, targetConvention: AxisConvention? = nil,
        absentSensors: Set<AbsentSensor> = []
    ) {
        self.absentSensors = absentSensors
        self.lenient = lenient
        self.timeUnit = timeUnit
        self.accelerationUnit = accelerationUnit
        self.detectionRowCount = detectionRowCount
        self.sourceConvention = sourceConvention
        self.targetConvention = targetConvention
    }
}

/// What reading a session found besides its samples: units and how they
/// were decided, and the rows that were skipped.
public struct SessionReadReport: Sendable {
    public var path: String
    public var rowsRead = 0
    public var hadHeader = false
    public var skippedRowCount = 0
    /// The first few skipped rows' errors, to show the user.
    public var skippedRowErrors: [SessionCSVError] = []
    public var timeUnit: UnitDetector.Guess<TimeUnit> = .init(unit: .seconds, reason: "not decided yet")
    public var accelerationUnit: UnitDetector.Guess<AccelerationUnit> = .init(unit: .standardGravity, reason: "not decided yet")
    public var axisConvention: UnitDetector.Guess<AxisConvention> = .init(unit: .coreMotion, reason: "not decided yet")
    /// True when the acceleration's sign was flipped into the target convention.
    public var convertedConvention = false

    /// True when anything was converted, which the user should be told.
    public var convertedUnits: Bool {
        timeUnit.unit != .seconds || accelerationUnit.unit != .standardGravity || convertedConvention
    }

    static let keptErrorCount = 10
}

/// Streams samples out of a session CSV in constant memory, converting
/// units on the way. Strict by default: the first malformed row throws an
/// error naming the file, line and column.
public final class SessionCSVReader {
    public let options: SessionCSVOptions
    public private(set) var report: SessionReadReport
    private let lines: LineReader
    private var pendingRows: [RawSessionRow] = []
    private var pendingIndex = 0
    private var unitsDecided = false
    private var secondsPerUnit = 1.0
    private var gPerUnit = 1.0
    private var sawDataOrHeader = false

    public init(path: String, options: SessionCSVOptions = .init()) throws(SessionCSVError) {
        do {
            lines = LineReader(file: try PosixFile.open(path, .read))
        } catch {
            throw SessionCSVError(path: path, line: 0, problem: .unreadable(error))
        }
        self.options = options
        report = SessionReadReport(path: path)
    }

    /// The next sample in file order, or `nil` at the end of the file.
    public func next() throws(SessionCSVError) -> MotionSample? {
        if !unitsDecided { try decideUnits() }
        if pendingIndex < pendingRows.count {
            defer {
                pendingIndex += 1
                if pendingIndex == pendingRows.count {
                    pendingRows = []
                    pendingIndex = 0
                }
            }
            return converted(pendingRows[pendingIndex])
        }
        return try nextRawRow().map(converted)
    }

    /// Reads every remaining sample; for tests and small files.
    public func readAll() throws(SessionCSVError) -> [MotionSample] {
        var samples: [MotionSample] = []
        while let sample = try next() { samples.append(sample) }
        return samples
    }

    private func decideUnits() throws(SessionCSVError) {
        while pendingRows.count < options.detectionRowCount, let row = try nextRawRow() {
            pendingRows.append(row)
        }
        report.timeUnit =
            options.timeUnit.map { .init(unit: $0, reason: "set by the user") }
            ?? UnitDetector.timeUnit(of: pendingRows.map(\.timestamp))
        report.accelerationUnit =
            options.accelerationUnit.map { .init(unit: $0, reason: "set by the user") }
            ?? UnitDetector.accelerationUnit(of: pendingRows.map(\.acceleration))
        report.axisConvention =
            options.sourceConvention.map { .init(unit: $0, reason: "set by the user") }
            ?? (report.accelerationUnit.unit == .metersPerSecondSquared
                ? .init(unit: .android, reason: "acceleration in m/s² comes from Android or IIO, whose gravity sign is +")
                : .init(unit: .coreMotion, reason: "acceleration in g, as CoreMotion records it"))
        secondsPerUnit = report.timeUnit.unit.secondsPerUnit
        gPerUnit = report.accelerationUnit.unit.gPerUnit
        if let target = options.targetConvention, target != report.axisConvention.unit {
            gPerUnit = -gPerUnit
            report.convertedConvention = true
        }
        unitsDecided = true
    }

    private func converted(_ row: RawSessionRow) -> MotionSample {
        var sample = MotionSample(
            time: secondsPerUnit == 1 ? row.timestamp : row.timestamp * secondsPerUnit,
            acceleration: gPerUnit == 1 ? row.acceleration : row.acceleration * gPerUnit,
            rotationRate: row.rotationRate,
            magneticField: row.magneticField,
            label: row.label)
        if let perturbation = options.perturbation { sample = perturbation.apply(to: sample) }
        for sensor in options.absentSensors { sensor.remove(from: &sample) }
        return sample
    }

    private func nextRawRow() throws(SessionCSVError) -> RawSessionRow? {
        while true {
            let parsed: Result<SessionRowParser.Line, SessionRowParser.RowError>?
            do {
                parsed = try lines.nextLine { line in
                    // A UTF-8 byte-order mark (some editors and spreadsheet exports write one) is not part of the first line.
                    let first = lines.lineNumber == 1 && line.starts(with: [0xEF, 0xBB, 0xBF]) ? UnsafeRawBufferPointer(rebasing: line[3...]) : line
                    return Result { () throws(SessionRowParser.RowError) in try SessionRowParser.parse(first) }
                }
            } catch LineReaderError.tooLong(let line, _) {
                throw SessionCSVError(path: report.path, line: line, problem: .lineTooLong)
            } catch LineReaderError.system(let error) {
                throw SessionCSVError(path: report.path, line: lines.lineNumber, problem: .unreadable(error))
            } catch {
                fatalError("LineReader throws only LineReaderError")
            }
            guard let parsed else { return nil }
            let lineNumber = lines.lineNumber
            switch parsed {
            case .success(.blank):
                continue
            case .success(.row(let row)):
                sawDataOrHeader = true
                report.rowsRead += 1
                return row
            case .success(.header(let names)):
                let isExpectedHeader = names.map { $0.lowercased() } == SessionCSVFormat.columnNames
                if !sawDataOrHeader && isExpectedHeader {
                    sawDataOrHeader = true
                    report.hadHeader = true
                    continue
                }
                let problem: SessionCSVError.Problem =
                    sawDataOrHeader ? .invalidLabel(names[0]) : .unknownHeader(names.joined(separator: ","))
                try skipOrThrow(SessionCSVError(path: report.path, line: lineNumber, column: sawDataOrHeader ? 1 : nil, problem: problem))
            case .failure(let failure):
                sawDataOrHeader = true
                try skipOrThrow(
                    SessionCSVError(path: report.path, line: lineNumber, column: failure.column, problem: failure.problem))
            }
        }
    }

    private func skipOrThrow(_ error: SessionCSVError) throws(SessionCSVError) {
        guard options.lenient else { throw error }
        report.skippedRowCount += 1
        if report.skippedRowErrors.count < SessionReadReport.keptErrorCount { report.skippedRowErrors.append(error) }
    }
}
