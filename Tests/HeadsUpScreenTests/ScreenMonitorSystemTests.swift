import Foundation
import HeadsUpDBus
import HeadsUpPipeline
import HeadsUpScreen
import HeadsUpTestSupport
import Logging
import Testing

/// Log lines, for what the monitor says (and how often).
final class ScreenLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return lines.joined(separator: "\n")
    }
    func count(_ fragment: String) -> Int { text.components(separatedBy: fragment).count - 1 }
    var logger: Logger { Logger(label: "test") { _ in Handler(log: self) } }

    struct Handler: LogHandler {
        let log: ScreenLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            log.lock.lock()
            log.lines.append("\(event.level): \(event.message)")
            log.lock.unlock()
        }
    }
}

/// ScreenMonitor against python-dbusmock's screen saver and logind templates
/// (and plain mocks of KDE's locker and Mutter) on a private dbus-daemon
/// playing both the session and the system bus.
@Suite("Screen monitor against dbusmock on a private bus", .serialized)
struct ScreenMonitorSystemTests {
    static let alone = "no screen or lock source answers"

    func bus() throws -> PrivateDBus {
        try requireCapability(PrivateDBus.unavailableReason == nil, PrivateDBus.unavailableReason ?? "")
        return try PrivateDBus()
    }

    func monitor(_ bus: PrivateDBus, log: ScreenLog) -> ScreenMonitor {
        var options = ScreenMonitor.Options()
        options.sessionBus = .address(bus.address)
        options.systemBus = .address(bus.address)
        options.sessionID = MockScreenService.sessionID
        return ScreenMonitor(options: options, logger: log.logger)
    }

    /// Polls until the monitor says `state` (signals take a moment to arrive).
    func settles(_ monitor: ScreenMonitor, to state: ScreenState, timeout: Double = 5) -> Bool {
        eventually(timeout) {
            usleep(20_000)
            return monitor.poll() == state
        }
    }

    @Test func phoshBlanksThroughTheGnomeScreenSaver() throws {
        let bus = try bus()
        let saver = try MockScreenService(.gnomeScreenSaver, bus: bus)
        let log = ScreenLog()
        let monitor = monitor(bus, log: log)
        #expect(monitor.start().isEmpty)
        #expect(monitor.poll() == .on)
        try saver.setActive(true)
        #expect(settles(monitor, to: .off), "\(log.text)")
        try saver.setActive(false)
        #expect(settles(monitor, to: .on))
        #expect(monitor.answers.first { $0.source == .gnomeScreenSaver }?.state == .on)
        #expect(monitor.answers.first { $0.source == .logind }?.state == nil, "no logind here")
        // A wrong-typed ActiveChanged is ignored, and said once.
        try saver.emit("ActiveChanged", signature: "s", [.string("yes")])
        try saver.emit("ActiveChanged", signature: "s", [.string("yes")])
        #expect(eventually { monitor.poll() == .on && log.count("sent ActiveChanged") == 1 }, "\(log.text)")
        #expect(log.count("sent ActiveChanged") == 1)
    }

    @Test func plasmaLocksThroughTheFreedesktopScreenSaver() throws {
        let bus = try bus()
        let locker = try MockScreenService(.kdeScreenSaver, bus: bus)
        let monitor = monitor(bus, log: ScreenLog())
        _ = monitor.start()
        #expect(monitor.poll() == .on)
        try locker.setActive(true)
        #expect(settles(monitor, to: .locked))
        try locker.setActive(false)
        #expect(settles(monitor, to: .on))
    }

    @Test func mutterPowerSaveAndLogindHints() throws {
        let bus = try bus()
        let mutter = try MockScreenService(.mutter, bus: bus)
        let logind = try MockScreenService(.logind, bus: bus)
        let monitor = monitor(bus, log: ScreenLog())
        _ = monitor.start()
        #expect(monitor.poll() == .on)
        try mutter.setPowerSaveMode(3)
        #expect(settles(monitor, to: .off))
        try mutter.setPowerSaveMode(0)
        #expect(settles(monitor, to: .on))
        try logind.setLockedHint(true)
        #expect(settles(monitor, to: .locked))
        try logind.setLockedHint(false)
        try logind.setIdleHint(true)
        #expect(settles(monitor, to: .idle))
        #expect(monitor.answers.first { $0.source == .logind }?.state == .idle)
        #expect(monitor.answers.first { $0.source == .mutterPowerSave }?.state == .on)
    }

    /// Any source saying "not in use" wins, whatever the others say.
    @Test func theSourcesCombine() throws {
        let bus = try bus()
        let saver = try MockScreenService(.gnomeScreenSaver, bus: bus)
        let logind = try MockScreenService(.logind, bus: bus)
        let monitor = monitor(bus, log: ScreenLog())
        _ = monitor.start()
        #expect(monitor.poll() == .on)
        try logind.setLockedHint(true)
        #expect(settles(monitor, to: .locked))
        try saver.setActive(true)
        #expect(settles(monitor, to: .off), "blanked beats locked")
        try saver.setActive(false)
        #expect(settles(monitor, to: .locked), "the lock still holds")
        try logind.setLockedHint(false)
        #expect(settles(monitor, to: .on))
    }

    /// A source that vanishes is dropped, and the fall back to the motion
    /// model is said once; when it returns it is read afresh.
    @Test func aSourceThatVanishesAndReturns() throws {
        let bus = try bus()
        let saver = try MockScreenService(.gnomeScreenSaver, bus: bus)
        let log = ScreenLog()
        let monitor = monitor(bus, log: log)
        _ = monitor.start()
        try saver.setActive(true)
        #expect(settles(monitor, to: .off))
        saver.stop()
        #expect(settles(monitor, to: .unknown), "\(log.text)")
        for _ in 0..<10 { _ = monitor.poll() }
        #expect(log.count(Self.alone) == 1, "\(log.text)")
        #expect(log.text.contains("left the bus"))
        try saver.start()
        #expect(settles(monitor, to: .on), "the new screen saver is read afresh (its state: active false)")
        #expect(log.count(Self.alone) == 1)
    }

    /// A board: nothing answers; said once, at the start.
    @Test func noSourceAtAllIsSaidOnce() throws {
        let bus = try bus()
        let log = ScreenLog()
        let monitor = monitor(bus, log: log)
        #expect(monitor.start().isEmpty)
        for _ in 0..<5 { #expect(monitor.poll() == .unknown) }
        #expect(log.count(Self.alone) == 1)
        var options = ScreenMonitor.Options()
        options.sessionBus = .address("unix:path=/nonexistent/bus")
        options.systemBus = .address("unix:path=/nonexistent/bus")
        let unreachable = ScreenMonitor(options: options, logger: log.logger).start()
        #expect(unreachable.count == 2, "\(unreachable)")
    }
}
