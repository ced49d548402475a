import HeadsUpData
import Testing

@testable import HeadsUpSensors

@Suite("Sensor conversion")
struct ConversionTests {
    @Test func mountMatrixParsesTheKernelFormatAndAppliesMTimesV() throws {
        let matrix = try #require(MountMatrix(parsing: "0, 1, 0; 1, 0, 0; 0, 0, -1\n"))
        #expect(matrix.apply(SIMD3(1, 2, 3)) == SIMD3(2, 1, -3))
        #expect(MountMatrix(parsing: "1, 0, 0; 0, 1, 0") == nil)
        #expect(MountMatrix(parsing: "a, 0, 0; 0, 1, 0; 0, 0, 1") == nil)
        #expect(MountMatrix.identity.apply(SIMD3(4, 5, 6)) == SIMD3(4, 5, 6))
        let rotated = try #require(MountMatrix(parsing: "0.7071, -0.7071, 0; 0.7071, 0.7071, 0; 0, 0, 1"))
        #expect(abs(rotated.apply(SIMD3(1, 0, 0)).y - 0.7071) < 1e-12)
    }

    @Test func unitsBecomeTheModels() {
        #expect(abs(9.80665 * SensorKind.accelerometer.factorFromIIO - 1) < 1e-15)
        #expect(SensorKind.magnetometer.factorFromIIO == 100)
        #expect(SensorKind.gyroscope.factorFromIIO == 1)
    }

    @Test func coreMotionNegatesIIOAcceleration() {
        #expect(AxisConvention.coreMotion.fromIIO(acceleration: SIMD3(0, 0, 1)) == SIMD3(0, 0, -1))
        #expect(AxisConvention.android.fromIIO(acceleration: SIMD3(0, 0, 1)) == SIMD3(0, 0, 1))
    }

    @Test func ratesPickTheNearestAtOrAbove50() throws {
        let lsm6dsx = try #require(AvailableRates(parsing: "12.500000 26.000000 52.000000 104.000000 208.000000 416.000000\n"))
        #expect(lsm6dsx.choose(atLeast: 50) == 52)
        let lis3mdl = try #require(AvailableRates(parsing: "0.625 1.25 2.5 5 10 20 40 80"))
        #expect(lis3mdl.choose(atLeast: 50) == 80)
        let slow = try #require(AvailableRates(parsing: "5 10 20"))
        #expect(slow.choose(atLeast: 50) == 20)
        let range = try #require(AvailableRates(parsing: "[4 1.5 400]"))
        #expect(range.choose(atLeast: 50) == 50.5)
        #expect(try #require(AvailableRates(parsing: "[10 10 200]")).choose(atLeast: 50) == 50)
        #expect(AvailableRates(parsing: "") == nil)
        #expect(AvailableRates(parsing: "[1 2]") == nil)
    }
}

@Suite("Sensor aligner")
struct SensorAlignerTests {
    /// Readings of `kind` at `rate` Hz from `start`, value = f(t) on all axes.
    func readings(_ rate: Double, from start: Double, count: Int, _ f: @escaping (Double) -> Double) -> [(Double, SIMD3<Double>)] {
        (0..<count).map { i in
            let t = start + Double(i) / rate
            return (t, SIMD3(repeating: f(t)))
        }
    }

    func interleave(_ streams: [(SensorKind, [(Double, SIMD3<Double>)])]) -> [(SensorKind, Double, SIMD3<Double>)] {
        streams.flatMap { kind, readings in readings.map { (kind, $0.0, $0.1) } }.sorted { $0.1 < $1.1 }
    }

    @Test func a52HzImuAndAn80HzMagnetometerBecomeOne50HzStream() {
        var aligner = SensorAligner(kinds: [.accelerometer, .gyroscope, .magnetometer])
        let line: (Double) -> Double = { 2 * ($0 - 100) }
        let pushes = interleave([
            (.accelerometer, readings(52, from: 100.003, count: 520, line)),
            (.gyroscope, readings(52, from: 100.003, count: 520, { -$0 })),
            (.magnetometer, readings(80, from: 100.011, count: 800, { _ in 42 })),
        ])
        var out: [(MotionSample, Int64)] = []
        for (kind, time, values) in pushes {
            aligner.push(kind, time: time, values: values) { if case .sample(let s, let i) = $0 { out.append((s, i)) } }
        }
        #expect(out.count >= 495)
        #expect(zip(out, out.dropFirst()).allSatisfy { $1.1 == $0.1 + 1 })
        #expect(out.first?.1 == 5001)  // 100.02 s: the first point every sensor covers
        for (sample, index) in out {
            #expect(sample.time == Double(index) / 50)
            #expect(abs(sample.acceleration.x - line(sample.time)) < 1e-9)
            #expect(abs(sample.rotationRate.z + sample.time) < 1e-9)
            #expect(sample.magneticField.y == 42)
        }
        #expect(aligner.droppedCount == 0)
    }

    @Test func aGapInOneSensorDropsThosePointsForAll() {
        var aligner = SensorAligner(kinds: [.accelerometer, .magnetometer])
        var magnetometer = readings(100, from: 10, count: 300, { _ in 1 })
        magnetometer.removeAll { $0.0 > 11 && $0.0 < 11.5 }  // 0.5 s silence: a gap
        let pushes = interleave([(.accelerometer, readings(100, from: 10, count: 300, { _ in 2 })), (.magnetometer, magnetometer)])
        var indices: [Int64] = []
        for (kind, time, values) in pushes {
            aligner.push(kind, time: time, values: values) { if case .sample(_, let i) = $0 { indices.append(i) } }
        }
        #expect(!indices.contains(560))  // 11.2 s fell in the gap
        #expect(indices.contains(549) && indices.contains(576))
        #expect(aligner.droppedCount > 20)
    }

    @Test func aStalledSensorDoesNotHoldTheOthersForever() {
        var aligner = SensorAligner(kinds: [.accelerometer, .magnetometer], maximumLag: 50)
        var emitted = 0
        for (kind, time, values) in interleave([
            (.accelerometer, readings(100, from: 0, count: 100, { _ in 1 })), (.magnetometer, readings(100, from: 0, count: 20, { _ in 1 })),
        ]) {
            aligner.push(kind, time: time, values: values) { _ in emitted += 1 }
        }
        #expect(emitted == 10)  // 0 … 0.18 s while both ran
        // The magnetometer returns after a long silence: alignment resumes.
        for (kind, time, values) in interleave([
            (.accelerometer, readings(100, from: 1, count: 100, { _ in 1 })), (.magnetometer, readings(100, from: 1, count: 100, { _ in 1 })),
        ]) {
            aligner.push(kind, time: time, values: values) { _ in emitted += 1 }
        }
        #expect(emitted > 50)
    }
}

@Suite("IIO errors")
struct IIOErrorTests {
    @Test func permissionProblemsSayWhatToDo() {
        let error = IIOError(operation: "creating a 13-sample buffer", target: "bmi160 (iio:device0)", errno: -13)
        #expect(error.description.contains("permission denied"))
        #expect(error.description.contains("udev rule"))
        #expect(error.description.contains("adduser $USER headsup"))
        #expect(!error.meansDeviceVanished)
    }

    @Test func aVanishedDeviceIsRecognised() {
        #expect(IIOError(operation: "reading samples", target: "bmi160", errno: -110).meansDeviceVanished)
        #expect(IIOError(operation: "reading samples", target: "bmi160", errno: -110).description.contains("unplugged"))
        #expect(IIOError(operation: "reading raw", target: "ak8975", errno: -2).meansDeviceVanished)
    }
}
