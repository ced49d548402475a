import Foundation
import Glibc
import HeadsUpDBus

/// GeoClue2 played by python-dbusmock on a private bus with HeadsUp's own
/// template (Tests/Harness/geoclue_template.py: python-dbusmock has none).
/// It can be stopped and started again, as GeoClue exits after its last
/// client or crashes.
public final class MockGeoClue {
    public static let service = "org.freedesktop.GeoClue2"
    static let manager = "/org/freedesktop/GeoClue2/Manager"
    public static let template = TestEnvironment.path("Tests/Harness/geoclue_template.py")

    private let bus: PrivateDBus
    private let probe: DBusConnection
    private var process: BackgroundProcess?

    /// Starts the mock with Location `enabled` and an agent present (`agent`).
    public init(bus: PrivateDBus, enabled: Bool = true, agent: Bool = true) throws {
        self.bus = bus
        probe = try DBusConnection(.address(bus.address))
        try start(enabled: enabled, agent: agent)
    }

    deinit { process?.killAbruptly() }

    /// Starts the mock (again): a fresh GeoClue with no client.
    public func start(enabled: Bool = true, agent: Bool = true) throws {
        process = try BackgroundProcess(
            PrivateDBus.python,
            ["-m", "dbusmock", "--system", "-t", Self.template, "-p", #"{"enabled": \#(enabled), "agent": \#(agent)}"#], environment: bus.environment)
        for _ in 0..<200 where probe.owner(of: Self.service) == nil { usleep(25_000) }
        guard probe.owner(of: Self.service) != nil else {
            throw CapabilityMissing(reason: "dbusmock did not take \(Self.service): \(process!.standardError)")
        }
    }

    /// Stops the mock: its name leaves the bus.
    public func stop() {
        process?.killAbruptly()
        _ = process?.finish(timeout: 5)
        process = nil
        for _ in 0..<200 where probe.owner(of: Self.service) != nil { usleep(25_000) }
    }

    /// The user turns Location on or off (GeoClue's agent says so).
    public func setEnabled(_ enabled: Bool) throws { try control("SetEnabled", [.boolean(enabled)]) }

    /// One fix, as GeoClue sends it; false while no client has started.
    @discardableResult
    public func emitFix(latitude: Double, longitude: Double, accuracy: Double, speed: Double = -1, heading: Double = -1) throws -> Bool {
        try control("EmitFix", [.double(latitude), .double(longitude), .double(accuracy), .double(speed), .double(heading)]).first?.bool ?? false
    }

    /// How often `method` was called on `path` of this run of the mock.
    public func calls(_ method: String, path: String = "/org/freedesktop/GeoClue2/Client/1") throws -> Int {
        let log = try probe.call(
            destination: Self.service, path: path, interface: "org.freedesktop.DBus.Mock", member: "GetMethodCalls", arguments: [.string(method)])
        return log.first?.items?.count ?? 0
    }

    @discardableResult
    private func control(_ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
        try probe.call(
            destination: Self.service, path: Self.manager, interface: "org.freedesktop.GeoClue2.HeadsUpMock", member: member, arguments: arguments)
    }
}
