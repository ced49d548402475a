import Foundation
import HeadsUpTestSupport
import Testing

/// `headsup live --simulate` with positions from GeoClue2, played by
/// HeadsUp's GeoClue mock on a private system bus: the hands walk with the
/// mock's fixes approaching a Monaco crossing warns once; with Location off
/// it says so and the beacons still warn; GeoClue leaving and coming back
/// gets a new client.
@Suite("headsup live with GeoClue2 (python-dbusmock)", .serialized)
struct LiveGeoClueSystemTests {
    static let walk = TestEnvironment.path("datasets/scenarios/map-crossing-walk")

    /// A walk on a street without beacons and without a recorded track: the motion and crossings of map-crossing-walk.
    func streetWithoutBeacons() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        for file in ["session.csv", "crossings.tsv"] {
            try FileManager.default.copyItem(atPath: "\(Self.walk)/\(file)", toPath: directory.path(file))
        }
        _ = try directory.write("beacons.csv", "region,crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D:1\n")
        return directory
    }

    /// The recorded track's fixes (latitude, longitude, accuracy, speed, heading), one a second of data.
    func track() throws -> [[Double]] {
        try String(contentsOfFile: "\(Self.walk)/locations.csv", encoding: .utf8).split(separator: "\n").dropFirst()
            .map { $0.split(separator: ",").dropFirst().compactMap { Double($0) } }
    }

    func environment(_ bus: PrivateDBus) -> [String: String] {
        var environment = bus.environment
        environment.removeValue(forKey: "XDG_SESSION_ID")
        return environment
    }

    func live(_ arguments: [String], bus: PrivateDBus) throws -> BackgroundProcess {
        try BackgroundProcess(
            TestEnvironment.productsDirectory.appendingPathComponent("headsup").path,
            ["live", "--simulate"] + arguments + ["--json", "--no-desktop", "--model", TestEnvironment.path("weights/model.h5")],
            environment: environment(bus))
    }

    /// The warning events among `live --json`'s output lines.
    func warnings(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .filter { $0["event"] as? String == "warning" }
    }

    @Test func theMocksFixesOverAMappedCrossingWarnOnce() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let geoclue = try MockGeoClue(bus: bus)
        let street = try streetWithoutBeacons()
        // 4× real time: a second of data every 0.25 s, and a fix with it.
        let process = try live([street.url.path, "--speed", "4"], bus: bus)
        #expect(process.wait(for: "location: no fix yet", timeout: 20), "\(process.standardError)")
        for fix in try track() where fix.count == 5 {
            try geoclue.emitFix(latitude: fix[0], longitude: fix[1], accuracy: fix[2], speed: fix[3], heading: fix[4])
            usleep(250_000)
            if !process.isRunning { break }
        }
        #expect(process.finish(timeout: 30) == 0, "\(process.standardError)")
        let warnings = warnings(process.standardOutput)
        #expect(warnings.count == 1, "\(process.standardError)")
        #expect(warnings.first?["region"] as? String == "osm:node/21911888")
        #expect(process.standardError.contains("location: receiving fixes from GeoClue2"))
        #expect(process.standardError.contains("1 crossings entered"), "\(process.standardError)")
        #expect(try geoclue.calls("Start") == 1)
    }

    @Test func locationOffIsSaidOnceAndTheBeaconsStillWarn() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let geoclue = try MockGeoClue(bus: bus, enabled: false)
        let process = try live(["crossing-hands", "--speed", "5", "--crossings", TestEnvironment.path("datasets/crossings/monaco.tsv")], bus: bus)
        #expect(process.wait(for: "location: Location off", timeout: 20), "\(process.standardError)")
        for fix in try track() where fix.count == 5 {
            #expect(try !geoclue.emitFix(latitude: fix[0], longitude: fix[1], accuracy: fix[2], speed: fix[3], heading: fix[4]), "no client runs")
            usleep(100_000)
        }
        #expect(process.finish(timeout: 30) == 0, "\(process.standardError)")
        let warnings = warnings(process.standardOutput)
        #expect(warnings.map { $0["region"] as? String } == ["crossing"], "the beacon's warning only")
        #expect(process.standardError.components(separatedBy: "location: Location off").count == 2, "said once")
        #expect(process.standardError.contains("Settings → Privacy → Location Services"))
    }

    @Test func geoClueLeavingAndComingBackGetsANewClient() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let geoclue = try MockGeoClue(bus: bus)
        let street = try streetWithoutBeacons()
        let process = try live([street.url.path, "--speed", "2"], bus: bus)
        #expect(process.wait(for: "location: no fix yet", timeout: 20), "\(process.standardError)")
        geoclue.stop()
        #expect(process.wait(for: "location: GeoClue2 left the bus", timeout: 10), "\(process.standardError)")
        try geoclue.start()
        // The client starts again at once (the name's return), or at the next retry.
        #expect(eventually(15) { (try? geoclue.calls("Start")) == 1 }, "\(process.standardError)")
        #expect(eventually(5) { process.standardError.components(separatedBy: "location: no fix yet").count == 3 }, "\(process.standardError)")
        process.interrupt()
        _ = process.finish(timeout: 10)
    }

    /// location.source auto on a bus without GeoClue2: gpsd on localhost
    /// instead, and its fixes over the crossing warn once.
    @Test func autoFallsBackToGpsdWhereGeoClueIsNotOnTheBus() throws {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        let bus = try PrivateDBus()
        let gpsd = try FakeGPSD()
        let street = try streetWithoutBeacons()
        let config = try street.write("config.yaml", "location:\n  source: auto\n  gpsd_port: \(gpsd.port)\n")
        let process = try live([street.url.path, "--speed", "4", "--config", config], bus: bus)
        #expect(process.wait(for: "location: gpsd: no fix yet", timeout: 20), "\(process.standardError)")
        #expect(process.standardError.contains("GeoClue2 is unavailable"))
        usleep(300_000)
        for fix in try track() where fix.count == 5 {
            gpsd.send("fix \(fix[0]) \(fix[1]) \(fix[2]) \(fix[3]) \(fix[4])")
            usleep(250_000)
            if !process.isRunning { break }
        }
        #expect(process.finish(timeout: 30) == 0, "\(process.standardError)")
        let warnings = warnings(process.standardOutput)
        #expect(warnings.count == 1, "\(process.standardError)")
        #expect(warnings.first?["region"] as? String == "osm:node/21911888")
        #expect(process.standardError.contains("location: receiving fixes from gpsd"))
        gpsd.stop()
    }
}
