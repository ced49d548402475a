import Foundation
import HeadsUpCrossings
import HeadsUpSystem
import HeadsUpTestSupport
import Logging
import Testing

@testable import HeadsUpLocation

/// The gpsd client against a stand-in gpsd on loopback
/// (Tests/Harness/fake_gpsd.py): fixes, no fix, junk, not running, and gpsd
/// closing the connection.
@Suite("gpsd client (fake gpsd on loopback)", .serialized)
struct GPSDClientSystemTests {
    func client(port: UInt16) -> GPSDClient {
        var options = GPSDClient.Options()
        options.port = port
        options.retryInterval = 0.2
        return GPSDClient(options: options, clock: SystemMonotonicClock(), wallClock: SystemWallClock(), logger: Logger(label: "test"))
    }

    func poll(_ client: GPSDClient, until condition: ([LocationFix]) -> Bool) -> [LocationFix]? {
        fixes(polling: client.poll, until: condition)
    }

    @Test func fixesNoFixAndJunk() throws {
        try requireCapability(FileManager.default.isExecutableFile(atPath: FakeGPSD.python), "\(FakeGPSD.python) runs the stand-in gpsd")
        let gpsd = try FakeGPSD()
        let client = client(port: gpsd.port)
        client.start()
        #expect(client.state == .noFix)
        #expect(eventually(5) { client.poll().isEmpty && client.counters.reports >= 3 }, "VERSION, DEVICES, WATCH")
        gpsd.send("junk")
        gpsd.send("fix 43.7375272 7.425191 6 1.3 90")
        let fixes = try #require(poll(client) { $0.count == 1 })
        #expect(fixes[0].position == GeoPoint(latitude: 43.7375272, longitude: 7.425191))
        #expect(fixes[0].accuracy == 6 && fixes[0].speed == 1.3 && fixes[0].heading == 90)
        #expect(abs(SystemMonotonicClock().now() - fixes[0].time) < 2)
        #expect(client.state == .fixes)
        gpsd.send("nofix")
        #expect(poll(client) { _ in client.state == .noFix } != nil)
        client.stop()
        gpsd.stop()
    }

    @Test func gpsdClosingTheConnectionIsReconnected() throws {
        try requireCapability(FileManager.default.isExecutableFile(atPath: FakeGPSD.python), "\(FakeGPSD.python) runs the stand-in gpsd")
        let gpsd = try FakeGPSD()
        let client = client(port: gpsd.port)
        client.start()
        #expect(eventually(5) { client.poll().isEmpty && client.counters.reports >= 3 }, "watching")
        gpsd.send("close")
        #expect(poll(client) { _ in client.state == .restarting } != nil)
        #expect(
            poll(client) { _ in client.state == .noFix && client.counters.connections == 2 && client.counters.reports >= 6 } != nil, "\(client.state)"
        )
        gpsd.send("fix 43.7 7.4 5 1 0")
        #expect(poll(client) { $0.count == 1 } != nil)
        client.stop()
        gpsd.stop()
    }

    @Test func notRunning() throws {
        try requireCapability(FileManager.default.isExecutableFile(atPath: FakeGPSD.python), "\(FakeGPSD.python) runs the stand-in gpsd")
        let gpsd = try FakeGPSD()
        gpsd.stop()
        let client = client(port: gpsd.port)
        client.start()
        guard case .notRunning = client.state else {
            Issue.record("expected not running, got \(client.state)")
            return
        }
        #expect(client.state.description.contains("gpsd is not running"))
    }
}
