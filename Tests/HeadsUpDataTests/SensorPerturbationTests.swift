import HeadsUpData
import HeadsUpTestSupport
import Testing

/// `evaluate --perturb`'s math: what another phone's calibration, another
/// pose or another rate does to a recording.
@Suite("Sensor perturbation")
struct SensorPerturbationTests {
    static let sample = MotionSample(
        time: 3, acceleration: .init(0.1, -0.6, -0.8), rotationRate: .init(0.2, -0.1, 0.3), magneticField: .init(20, -30, 40), label: .hands)

    @Test func calibrationErrorsChangeOnlyTheirSensor() {
        let s = Self.sample
        let offset = SensorPerturbation.magneticOffset(.init(-590, 0, 0)).apply(to: s)
        #expect(offset.magneticField == .init(-570, -30, 40))
        #expect(offset.acceleration == s.acceleration && offset.rotationRate == s.rotationRate && offset.time == 3 && offset.label == .hands)
        #expect(SensorPerturbation.magneticGain(2).apply(to: s).magneticField == .init(40, -60, 80))
        let acc = SensorPerturbation.accelerationBias(.init(repeating: 0.05)).apply(to: s)
        #expect(abs(acc.acceleration.x - 0.15) < 1e-12 && acc.rotationRate == s.rotationRate && acc.magneticField == s.magneticField)
        let gyro = SensorPerturbation.rotationRateBias(.init(repeating: -0.05)).apply(to: s)
        #expect(abs(gyro.rotationRate.z - 0.25) < 1e-12 && gyro.acceleration == s.acceleration)
    }

    @Test func aSensorTheRecordingLacksStaysMissing() {
        var s = Self.sample
        s.rotationRate = .zero
        s.magneticField = .zero
        #expect(SensorPerturbation.rotationRateBias(.init(repeating: 0.05)).apply(to: s).rotationRate == .zero)
        #expect(SensorPerturbation.magneticOffset(.init(repeating: 600)).apply(to: s).magneticField == .zero)
    }

    @Test func aPitchTurnsEverySensorAlikeAndKeepsLengths() {
        // Flat, screen up (acc z ≈ -1 g), pitched 90°: upright in portrait, the y axis up (acc y ≈ -1 g).
        var flat = Self.sample
        flat.acceleration = .init(0, 0, -1)
        let upright = SensorPerturbation.rotation(.pitch, degrees: 90).apply(to: flat)
        #expect(abs(upright.acceleration.y + 1) < 1e-12 && abs(upright.acceleration.z) < 1e-12)
        // Held at 30° and pitched 30° more: 60° from flat.
        flat.acceleration = .init(0, -0.5, -(0.75).squareRoot())
        let raised = SensorPerturbation.rotation(.pitch, degrees: 30).apply(to: flat)
        #expect(abs(raised.acceleration.y + (0.75).squareRoot()) < 1e-12 && abs(raised.acceleration.z + 0.5) < 1e-12)
        // Roll raises the right edge: the x axis points up a little (acc x < 0).
        flat.acceleration = .init(0, 0, -1)
        #expect(SensorPerturbation.rotation(.roll, degrees: 20).apply(to: flat).acceleration.x < -0.3)
        let s = Self.sample
        for axis in SensorPerturbation.RotationAxis.allCases {
            let r = SensorPerturbation.rotation(axis, degrees: 37).apply(to: s)
            func length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
            #expect(abs(length(r.acceleration) - length(s.acceleration)) < 1e-12)
            #expect(abs(length(r.magneticField) - length(s.magneticField)) < 1e-9)
            // One rotation for all: the angle between acc and gyro is kept.
            #expect(abs((r.acceleration * r.rotationRate).sum() - (s.acceleration * s.rotationRate).sum()) < 1e-12)
        }
        let back = SensorPerturbation.rotation(.roll, degrees: -25).apply(to: SensorPerturbation.rotation(.roll, degrees: 25).apply(to: s))
        #expect(abs(back.acceleration.x - s.acceleration.x) < 1e-12 && abs(back.magneticField.z - s.magneticField.z) < 1e-9)
    }

    @Test func listsParseAndPrintAsWritten() throws {
        let list = try SensorPerturbation.parseList(
            "mag-offset=600,mag-offset=-590:0:0,mag-gain=0.5,acc-bias=-0.05,gyro-bias=0.05,rotate=pitch:60,rate=100")
        #expect(
            list.map(\.description) == [
                "mag-offset=600", "mag-offset=-590:0:0", "mag-gain=0.5", "acc-bias=-0.05", "gyro-bias=0.05", "rotate=pitch:60", "rate=100",
            ])
        #expect(list.map(\.isCalibration) == [true, true, true, true, true, false, false])
        #expect(list[6].rate == 100 && list[0].rate == nil)
        let suite = try SensorPerturbation.parseList("calibration")
        #expect(suite == SensorPerturbation.calibrationSuite && suite.allSatisfy(\.isCalibration))
        #expect(suite.contains(.magneticOffset(.init(repeating: 600))) && suite.contains(.magneticGain(2)))
    }

    @Test(arguments: [
        "mag-offset", "mag-offset=", "mag-offset=abc", "mag-offset=1:2", "mag-offset=20000", "mag-gain=0", "mag-gain=-1", "acc-bias=3",
        "gyro-bias=nan", "rotate=60", "rotate=tilt:10", "rotate=pitch:720", "rate=5", "rate=inf", "wobble=1", "",
    ])
    func badItemsSayWhatToWrite(_ item: String) {
        #expect(throws: SensorPerturbationError.self) { try SensorPerturbation.parseList(item) }
        do {
            _ = try SensorPerturbation.parseList(item)
        } catch {
            #expect(error.description.contains("--perturb"))
        }
    }

    @Test func aRateConverterResamplesAndKeepsGaps() {
        var converter = RateConverter(rate: 25, maximumGap: 0.1)
        var out: [MotionSample] = []
        func at(_ t: Double, _ x: Double) -> MotionSample {
            MotionSample(time: t, acceleration: .init(x, 0, 0), rotationRate: .zero, magneticField: .zero)
        }
        for i in 0...10 { converter.push(at(Double(i) * 0.01, Double(i))) { out.append($0) } }
        #expect(out.map(\.time) == [0, 0.04, 0.08])
        #expect(abs(out[1].acceleration.x - 4) < 1e-9 && abs(out[2].acceleration.x - 8) < 1e-9)
        converter.push(at(0.1, 10)) { out.append($0) }  // not later than 0.1 → nothing new yet
        converter.push(at(0.05, 5)) { out.append($0) }  // back in time: dropped
        converter.push(at(0.5, 50)) { out.append($0) }  // a gap: the grid restarts at the new sample
        #expect(out.map(\.time) == [0, 0.04, 0.08, 0.5])
        converter.push(at(0.55, 55)) { out.append($0) }
        #expect(out.count == 5 && abs(out[4].time - 0.54) < 1e-12 && abs(out[4].acceleration.x - 54) < 1e-9)
    }

    @Test func aStreamReadsAtThePerturbedRate() throws {
        let directory = try TemporaryDirectory()
        let rows = (0..<200).map { i in "1,\(100 + Double(i) * 0.01),0.1,-0.5,-0.8,0.1,0.2,0.3,10,20,30" }
        let path = try directory.write("session.csv", ([SessionCSVFormat.header] + rows).joined(separator: "\n"))
        var csv = SessionCSVOptions()
        csv.perturbation = .rate(25)
        var stream = try SessionStream(path: path, csv: csv)
        var times: [Double] = []
        while let s = try stream.read() { times.append(s.time) }
        #expect(times.count == 50)
        #expect(abs(times[1] - times[0] - 0.04) < 1e-9)
        csv.perturbation = .accelerationBias(.init(0.05, 0, 0))
        var biased = try SessionStream(path: path, csv: csv)
        #expect(abs(try biased.read()!.acceleration.x - 0.15) < 1e-9)
    }

    @Test func aWindowFedWithoutASensorHasItsChannelsAtZero() {
        let values = (0..<(9 * 4)).map { Float($0 + 1) }
        let window = MotionWindow(startTime: 0, startGridIndex: 0, length: 4, label: nil, labelIsUniform: true, channelMajorValues: values)
        let fed = window.zeroing([.magnetometer])
        #expect(Array(fed.channelMajorValues[24...]) == [Float](repeating: 0, count: 12))
        #expect(Array(fed.channelMajorValues[..<24]) == Array(values[..<24]))
        #expect(window.zeroing([]) == window)
        #expect(window.zeroing([.gyroscope]).flattened(.timeMajor)[3] == 0)
    }
}
