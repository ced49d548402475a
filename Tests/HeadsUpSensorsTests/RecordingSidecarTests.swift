import Foundation
import HeadsUpData
import Testing

@testable import HeadsUpSensors

/// The sidecar `record` writes beside its CSV: where it goes, what it says,
/// that it reads back, and that writing it replaces the file whole.
@Suite("Recording sidecar")
struct RecordingSidecarTests {
    static let accelerometerOnly = SensorSource(
        deviceName: "lsm6dsx_accel", deviceID: "iio:device0", channels: [.accelerometer: []], mountMatrices: [:], mountMatrixSources: [:],
        availableRates: "52 104", requestedRate: 50, rate: 52, mode: .buffered, timestampChannel: "timestamp", trigger: nil,
        timestampClock: "realtime")

    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "sidecar-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func pathBesideTheSession() {
        #expect(RecordingSidecar.path(forSession: "walk.csv") == "walk.json")
        #expect(RecordingSidecar.path(forSession: "/data/a.b/walk.csv") == "/data/a.b/walk.json")
        #expect(RecordingSidecar.path(forSession: "/data/a.b/walk") == "/data/a.b/walk.json")
        #expect(RecordingSidecar.path(forSession: "walk.json") == "walk.json")
    }

    @Test func channelsFollowTheSensors() {
        #expect(RecordingSidecar.channels(measuredBy: [.accelerometer]) == ["acc_x", "acc_y", "acc_z"])
        #expect(
            RecordingSidecar.channels(measuredBy: [.accelerometer, .magnetometer]) == ["acc_x", "acc_y", "acc_z", "mag_x", "mag_y", "mag_z"])
        #expect(RecordingSidecar.channels(measuredBy: Set(SensorKind.allCases)).count == 9)
    }

    @Test func writesReadsAndReplaces() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/walk.json"
        let sidecar = RecordingSidecar(
            session: "walk.csv", position: .bag, context: "local:", sources: [Self.accelerometerOnly], rate: 50, convention: .coreMotion,
            startTime: 1_700_000_000.25)
        try sidecar.write(to: path)
        let read = try RecordingSidecar.read(from: path)
        #expect(read == sidecar)
        #expect(read.label == 0)
        #expect(read.channels == ["acc_x", "acc_y", "acc_z"])
        #expect(read.devices == [.init(kinds: ["accelerometer"], name: "lsm6dsx_accel", id: "iio:device0", rateHz: 52, mode: "buffered")])
        #expect(read.startTimeUTC == "2023-11-14T22:13:20.250Z")
        #expect(read.samples == nil)

        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("\"position\" : \"bag\""))
        #expect(text.contains("\"format\" : \"headsup-recording\""))
        #expect(text.hasSuffix("}\n"))

        let done = sidecar.finished(samples: 500, firstTime: 1_700_000_001, lastTime: 1_700_000_010.98, labelChanges: 2)
        try done.write(to: path)
        let reread = try RecordingSidecar.read(from: path)
        #expect(reread.samples == 500)
        #expect(reread.seconds == 9.98)
        #expect(reread.labelChanges == 2)
        #expect(reread.startTime == 1_700_000_001)
        // Only the sidecar is left: the temporary file was renamed over it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["walk.json"])
    }

    @Test func theHandsAreLabelOne() {
        let sidecar = RecordingSidecar(
            session: "a.csv", position: .hands, context: "local:", devices: [], channels: [], sampleRateHz: 50, axisConvention: "coremotion",
            startTime: 0)
        #expect(sidecar.label == 1)
    }

    @Test func refusesWhatIsNotASidecar() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/manifest.json"
        try Data("{\"name\": \"phone-motion-v1\"}".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: RecordingSidecarError.self) { try RecordingSidecar.read(from: path) }
        #expect(throws: RecordingSidecarError.self) { try RecordingSidecar.read(from: dir + "/missing.json") }
    }

    @Test func anUnwritableFolderIsNamed() {
        let sidecar = RecordingSidecar(
            session: "a.csv", position: .pocket, context: "local:", devices: [], channels: [], sampleRateHz: 50, axisConvention: "coremotion",
            startTime: 0)
        do {
            try sidecar.write(to: "/nonexistent-folder/a.json")
            Issue.record("wrote into a missing folder")
        } catch {
            #expect(error.description.contains("/nonexistent-folder/a.json"))
            #expect(error.description.contains("no such file"))
        }
    }
}
