import HeadsUpData
import HeadsUpTestSupport
import Testing

@Suite("Unit detection")
struct UnitDetectionTests {
    /// An Android-style log: Unix milliseconds, m/s², gravity on +z.
    func androidLog(rows: Int = 300, start: Double = 1_700_000_000_000, step: Double = 10) -> String {
        (0..<rows).map { index in
            let z = 9.80665 + (index % 2 == 0 ? 0.3 : -0.3)
            return "1,\(start + Double(index) * step),0.1,0.2,\(z),0.01,0.02,0.03,20,30,40"
        }.joined(separator: "\n")
    }

    @Test func detectsMillisecondsAndMetersPerSecondSquared() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("android.csv", androidLog())
        let reader = try SessionCSVReader(path: path)
        let samples = try reader.readAll()
        #expect(reader.report.timeUnit.unit == .milliseconds)
        #expect(reader.report.timeUnit.reason == "timestamps look like Unix time in milliseconds")
        #expect(reader.report.accelerationUnit.unit == .metersPerSecondSquared)
        #expect(reader.report.accelerationUnit.reason.contains("m/s²"))
        #expect(reader.report.convertedUnits)
        #expect(samples[0].time == 1_700_000_000)
        #expect(abs(samples[1].time - samples[0].time - 0.01) < 1e-6)
        #expect(abs(samples[0].acceleration.z - (9.80665 + 0.3) / 9.80665) < 1e-12)
        #expect(abs(samples[0].acceleration.x - 0.1 / 9.80665) < 1e-12)
        #expect(samples[0].magneticField == SIMD3(20, 30, 40))
        #expect(samples.count == 300)
    }

    @Test func relativeTimestampsAreJudgedByTheirStep() {
        let milliseconds = (0..<100).map { Double($0) * 9.6 }
        #expect(UnitDetector.timeUnit(of: milliseconds).unit == .milliseconds)
        let nanoseconds = (0..<100).map { 5e12 + Double($0) * 19_230_769 }
        #expect(UnitDetector.timeUnit(of: nanoseconds).unit == .nanoseconds)
        let seconds = (0..<100).map { 12.5 + Double($0) * 0.01 }
        #expect(UnitDetector.timeUnit(of: seconds).unit == .seconds)
        let unixSeconds = [1_559_703_377.924, 1_559_703_377.934]
        #expect(UnitDetector.timeUnit(of: unixSeconds).unit == .seconds)
    }

    @Test func gravityMagnitudeSeparatesGFromMetersPerSecondSquared() {
        let iPhone = Array(repeating: SIMD3(0.0, -0.98, -0.1), count: 10)
        #expect(UnitDetector.accelerationUnit(of: iPhone).unit == .standardGravity)
        let shaking = (0..<10).map { SIMD3(Double($0 % 3), -1.0, 0.5) }
        #expect(UnitDetector.accelerationUnit(of: shaking).unit == .standardGravity)
        let android = Array(repeating: SIMD3(0.3, 9.7, 0.8), count: 10)
        #expect(UnitDetector.accelerationUnit(of: android).unit == .metersPerSecondSquared)
    }

    @Test func userOverrideWins() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("android.csv", androidLog())
        let options = SessionCSVOptions(timeUnit: .seconds, accelerationUnit: .standardGravity)
        let reader = try SessionCSVReader(path: path, options: options)
        let first = try #require(try reader.next())
        #expect(first.time == 1_700_000_000_000)
        #expect(first.acceleration.z > 9)
        #expect(reader.report.timeUnit.reason == "set by the user")
        #expect(!reader.report.convertedUnits)
    }

    @Test func theBundledIPhoneSessionsAreSecondsAndG() throws {
        let path = TestEnvironment.path("datasets/phone-motion-v1/sessions/data_sensors_data_3.csv")
        let reader = try SessionCSVReader(path: path)
        _ = try reader.next()
        #expect(reader.report.timeUnit.unit == .seconds)
        #expect(reader.report.accelerationUnit.unit == .standardGravity)
    }

    /// Found by the session-csv fuzzer: describing an absurd acceleration
    /// (4e171) while guessing units trapped converting it to an integer.
    @Test func anAbsurdValueIsDescribedNotATrap() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(
            "odd.csv", "1,1559704746.5,0.04e173,-0.5,-0.8,0,0,0,54,-127,21\n1,1559704746.51,0.2,-0.5,-0.8,0,0,0,54,-127,21\n")
        let reader = try SessionCSVReader(path: path)
        #expect(try reader.readAll().count == 2)
        #expect(!reader.report.accelerationUnit.reason.isEmpty)
    }
}
