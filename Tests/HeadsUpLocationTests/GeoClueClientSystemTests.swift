import Foundation
import HeadsUpCrossings
import HeadsUpDBus
import HeadsUpSystem
import HeadsUpTestSupport
import Logging
import Testing

@testable import HeadsUpLocation

/// The GeoClue2 client against HeadsUp's GeoClue mock on a private bus:
/// fixes, Location off, no agent, and GeoClue leaving and coming back.
@Suite("GeoClue2 client (python-dbusmock)", .serialized)
struct GeoClueClientSystemTests {
    /// A private bus, HeadsUp's GeoClue mock on it (none when `mock` is
    /// false), and a started client; holds the bus and the mock for the test.
    final class Rig {
        let bus: PrivateDBus
        let geoclue: MockGeoClue!
        let client: GeoClueClient

        init(mock: Bool = true, enabled: Bool = true, agent: Bool = true) throws {
            try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
            bus = try PrivateDBus()
            geoclue = mock ? try MockGeoClue(bus: bus, enabled: enabled, agent: agent) : nil
            var options = GeoClueClient.Options()
            options.bus = .address(bus.address)
            options.retryInterval = 0.2
            client = GeoClueClient(options: options, clock: SystemMonotonicClock(), wallClock: SystemWallClock(), logger: Logger(label: "test"))
            client.start()
        }
    }

    func poll(_ client: GeoClueClient, until condition: ([LocationFix]) -> Bool) -> [LocationFix]? {
        fixes(polling: client.poll, until: condition)
    }

    @Test func fixesArriveWithAccuracySpeedAndHeading() throws {
        let rig = try Rig()
        let (geoclue, client) = (rig.geoclue!, rig.client)
        #expect(client.state == .noFix)
        #expect(try geoclue.calls("Start") == 1)
        // Each fix is read as it comes: GeoClue removes a Location object on the next update.
        #expect(try geoclue.emitFix(latitude: 43.7375, longitude: 7.4252, accuracy: 4, speed: 1.3, heading: 45))
        let first = try #require(poll(client) { $0.count == 1 })
        #expect(try geoclue.emitFix(latitude: 43.7376, longitude: 7.4253, accuracy: 0, speed: -1, heading: -1))
        let fixes = try first + #require(poll(client) { $0.count == 1 })
        #expect(client.counters.unreadable == 0)
        #expect(client.state == .fixes)
        #expect(fixes.first?.position == GeoPoint(latitude: 43.7375, longitude: 7.4252))
        #expect(fixes.first?.accuracy == 4 && fixes.first?.speed == 1.3 && fixes.first?.heading == 45)
        #expect(fixes.last?.speed == nil && fixes.last?.heading == nil && fixes.last?.accuracy == 0)
        let age = SystemMonotonicClock().now() - (fixes.last?.time ?? 0)
        #expect(age >= 0 && age < 2, "the fix's GeoClue timestamp on the monotonic clock: \(age) s old")
        client.stop()
    }

    /// Issue 40: a LocationUpdated from anyone but GeoClue2's owner is
    /// dropped at the D-Bus seam. The forgery names the Location object of
    /// the last real fix, which still exists: a client that followed it
    /// would read that fix a second time.
    @Test func aForgedLocationUpdatedFromAnotherConnectionReadsNothing() throws {
        let rig = try Rig()
        let (geoclue, client) = (rig.geoclue!, rig.client)
        #expect(try geoclue.emitFix(latitude: 43.7375, longitude: 7.4252, accuracy: 4))
        var fixes = try #require(poll(client) { $0.count == 1 })
        let forger = Process()
        forger.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-send")
        forger.arguments = [
            "--bus=\(rig.bus.address)", "--type=signal", "/org/freedesktop/GeoClue2/Client/1",
            "org.freedesktop.GeoClue2.Client.LocationUpdated", "objpath:/", "objpath:/org/freedesktop/GeoClue2/Client/1/Location/1",
        ]
        try forger.run()
        forger.waitUntilExit()
        #expect(forger.terminationStatus == 0, "dbus-send sent the forged signal")
        // A real fix after the forgery: once it is read, the forgery has been processed too (one connection, in order).
        #expect(try geoclue.emitFix(latitude: 43.7380, longitude: 7.4260, accuracy: 4))
        fixes += try #require(poll(client) { $0.count == 1 })
        #expect(fixes.map(\.position.latitude) == [43.7375, 43.7380], "the forged signal was followed: \(fixes)")
        #expect(client.counters.unreadable == 0)
        client.stop()
    }

    @Test func locationOffThenTurnedOn() throws {
        let rig = try Rig(enabled: false)
        let (geoclue, client) = (rig.geoclue!, rig.client)
        #expect(client.state == .locationOff)
        #expect(client.status.contains("Location off"))
        try geoclue.setEnabled(true)
        #expect(poll(client) { _ in client.state == .noFix } != nil, "retried and started: \(client.state)")
        client.stop()
    }

    @Test func noAgent() throws {
        let rig = try Rig(agent: false)
        let (geoclue, client) = (rig.geoclue!, rig.client)
        #expect(client.state == .noAgent)
        #expect(try geoclue.calls("Start") == 1)
        client.stop()
    }

    @Test func geoClueLeavingAndComingBackStartsTheClientAgain() throws {
        let rig = try Rig()
        let (geoclue, client) = (rig.geoclue!, rig.client)
        #expect(client.state == .noFix)
        geoclue.stop()
        #expect(poll(client) { _ in client.state == .restarting } != nil)
        try geoclue.start()
        #expect(poll(client) { _ in client.state == .noFix } != nil, "\(client.state)")
        #expect(try geoclue.calls("Start") == 1, "the new GeoClue was started")
        #expect(try geoclue.emitFix(latitude: 43.7375, longitude: 7.4252, accuracy: 5))
        #expect(poll(client) { $0.count == 1 } != nil)
        #expect(client.counters.starts == 2)
        client.stop()
    }

    @Test func noGeoClueOnTheBus() throws {
        let rig = try Rig(mock: false)
        let client = rig.client
        guard case .unavailable = client.state else {
            Issue.record("expected unavailable, got \(client.state)")
            return
        }
        client.stop()
    }
}

extension GeoClueClient {
    var status: String { state.description }
}
