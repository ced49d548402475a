import HeadsUpData
import Testing

@testable import HeadsUpSensors

/// The phones' own rates on one 50 Hz grid (synthetic time): a Librem 5
/// reads its accelerometer at 50 Hz, its gyroscope at 59.5 Hz and its
/// magnetometer at 80 Hz (st_magn has no 50); each is resampled onto
/// k / 50 s and every grid point comes out once, with the values each
/// sensor had at that instant.
@Suite("Mixed sensor rates")
struct MixedRateAlignmentTests {
    /// A reading that changes linearly with time, so linear interpolation is exact.
    static func value(_ kind: SensorKind, at t: Double) -> SIMD3<Double> {
        switch kind {
        case .accelerometer: SIMD3(t, -t, 1)
        case .gyroscope: SIMD3(2 * t, 0.5, -t)
        case .magnetometer: SIMD3(-20 + t, 10, 3 * t)
        }
    }

    @Test func fiftyFiftyNineAndAHalfAndEightyHertzLandOnOneFiftyHertzGrid() {
        let rates: [SensorKind: Double] = [.accelerometer: 50, .gyroscope: 59.5, .magnetometer: 80]
        // Each sensor starts at its own phase, as separately clocked chips do.
        let phases: [SensorKind: Double] = [.accelerometer: 0.0031, .gyroscope: 0.0117, .magnetometer: 0.0042]
        var readings: [(Double, SensorKind)] = []
        for (kind, rate) in rates {
            var k = 0.0
            while phases[kind]! + k / rate < 10 {
                readings.append((100 + phases[kind]! + k / rate, kind))
                k += 1
            }
        }
        readings.sort { $0.0 < $1.0 }
        var aligner = SensorAligner(kinds: [.accelerometer, .gyroscope, .magnetometer])
        var emitted: [(Int64, MotionSample)] = []
        for (time, kind) in readings {
            aligner.push(kind, time: time, values: Self.value(kind, at: time)) { event in
                if case .sample(let sample, let index) = event { emitted.append((index, sample)) }
            }
        }
        #expect(aligner.droppedCount == 0)
        #expect(emitted.count >= 495, "\(emitted.count) of about 500 grid points in 10 s")
        for ((a, _), (b, _)) in zip(emitted, emitted.dropFirst()) { #expect(b == a + 1, "consecutive grid points") }
        for (index, sample) in emitted {
            let t = Double(index) / 50
            #expect(abs(sample.time - t) < 1e-9)
            #expect(gap(sample.acceleration, Self.value(.accelerometer, at: t)) < 1e-9, "accel at \(t)")
            #expect(gap(sample.rotationRate, Self.value(.gyroscope, at: t)) < 1e-9, "gyro at \(t)")
            #expect(gap(sample.magneticField, Self.value(.magnetometer, at: t)) < 1e-9, "magn at \(t)")
        }
    }

    private func gap(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        let d = a - b
        return (d * d).sum().squareRoot()
    }
}
