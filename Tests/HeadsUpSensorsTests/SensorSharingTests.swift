import Foundation
import Testing

@testable import HeadsUpSensors

@Suite("Sharing the sensors with iio-sensor-proxy")
struct SensorSharingTests {
    let proxyOnBus = SensorProxyEvidence(bus: "net.hadess.SensorProxy is taken on the system bus")
    let proxyByUdev = SensorProxyEvidence(udevType: "iio-poll-accel")

    @Test func autoPollsWhereTheProxyMayReadAndBuffersElsewhere() {
        #expect(ReadPath.choose(mode: .auto, buffer: .usable, proxy: .none).mode == .buffered)
        #expect(ReadPath.choose(mode: .auto, buffer: .usable, proxy: proxyOnBus).mode == .polled)
        let byUdev = ReadPath.choose(mode: .auto, buffer: .usable, proxy: proxyByUdev)
        #expect(byUdev.mode == .polled)
        #expect(byUdev.reason.contains("IIO_SENSOR_PROXY_TYPE=iio-poll-accel"))
        #expect(ReadPath.choose(mode: .auto, buffer: .usable, proxy: proxyOnBus).reason.contains("net.hadess.SensorProxy"))
    }

    @Test func explicitModesWinAndADeviceWithoutABufferIsPolled() {
        #expect(ReadPath.choose(mode: .poll, buffer: .usable, proxy: .none).mode == .polled)
        let forced = ReadPath.choose(mode: .buffer, buffer: .usable, proxy: proxyOnBus)
        #expect(forced.mode == .buffered)
        #expect(forced.reason.contains("cannot both use the buffer"))
        for mode in SensorReadMode.allCases {
            let path = ReadPath.choose(mode: mode, buffer: .none, proxy: .none)
            #expect(path.mode == .polled)
            #expect(path.reason.contains("no buffer"))
            // A triggered buffer without its trigger (no interrupt wired) cannot stream either.
            let untriggered = ReadPath.choose(mode: mode, buffer: .needsTrigger, proxy: proxyOnBus)
            #expect(untriggered.mode == .polled)
            #expect(untriggered.reason.contains("needs a trigger"))
        }
        #expect(SensorReadMode.standard == .auto)
    }

    @Test func theUdevPropertyIsReadFromUdevsDatabaseByDeviceNumber() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("headsup-udev-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: "\(root)/sys/iio:device2", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: "\(root)/udev", withIntermediateDirectories: true)
        try "236:2\n".write(toFile: "\(root)/sys/iio:device2/dev", atomically: true, encoding: .utf8)
        try "S:iio\nE:ID_PATH=platform-1c2b000.i2c\nE:IIO_SENSOR_PROXY_TYPE=iio-buffer-accel\nG:systemd\n"
            .write(toFile: "\(root)/udev/c236:2", atomically: true, encoding: .utf8)
        let probe = SensorProxyProbe(bus: nil, sysfsDevices: "\(root)/sys", udevData: "\(root)/udev")
        #expect(probe.evidence(deviceID: "iio:device2") == SensorProxyEvidence(udevType: "iio-buffer-accel"))
        #expect(probe.evidence(deviceID: "iio:device0") == .none)
        #expect(SensorProxyProbe.property("IIO_SENSOR_PROXY_TYPE", inUdevDatabase: "E:OTHER=1\n") == nil)
    }
}

@Suite("Buffer ownership after a crash")
struct BufferOwnershipTests {
    let me = ProcessIdentity(bootID: "boot-a", pid: 400, startTime: 9_000)

    @Test func anEnabledBufferWithoutARecordIsSomeoneElses() {
        guard case .someoneElses(let why) = BufferOwnershipRecord.judge(enabledBuffer: nil, current: me, isRunning: { _ in false }) else {
            Issue.record("a buffer with no record was taken for HeadsUp's")
            return
        }
        #expect(why.contains("another program"))
    }

    @Test func aKilledHeadsUpsBufferIsOursAndALivingOnesIsNot() {
        let killed = BufferOwnershipRecord(owner: ProcessIdentity(bootID: "boot-a", pid: 321, startTime: 100), device: "iio:device0")
        #expect(
            BufferOwnershipRecord.judge(enabledBuffer: killed, current: me, isRunning: { _ in false })
                == .ours("a HeadsUp that ended without turning it off (pid 321) left it on"))
        guard case .someoneElses = BufferOwnershipRecord.judge(enabledBuffer: killed, current: me, isRunning: { $0 == killed.owner }) else {
            Issue.record("a running HeadsUp's buffer was taken")
            return
        }
        let mine = BufferOwnershipRecord(owner: me, device: "iio:device0")
        guard case .ours = BufferOwnershipRecord.judge(enabledBuffer: mine, current: me, isRunning: { _ in true }) else {
            Issue.record("this process's own buffer was not recognised")
            return
        }
    }

    @Test func aRecordFromAnEarlierBootProvesNothing() {
        let old = BufferOwnershipRecord(owner: ProcessIdentity(bootID: "boot-z", pid: 321, startTime: 100), device: "iio:device0")
        guard case .someoneElses(let why) = BufferOwnershipRecord.judge(enabledBuffer: old, current: me, isRunning: { _ in false }) else {
            Issue.record("a record from another boot was trusted")
            return
        }
        #expect(why.contains("earlier boot"))
    }

    @Test func recordsRoundTripThroughTheStoreAndAreRemoved() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("headsup-own-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = BufferOwnershipStore(directory: directory)
        let record = BufferOwnershipRecord(owner: me, device: "iio:device1")
        #expect(store.record(for: "iio:device1") == nil)
        try store.save(record)
        #expect(store.record(for: "iio:device1") == record)
        #expect(store.record(for: "iio:device0") == nil)
        store.remove(device: "iio:device1")
        #expect(store.record(for: "iio:device1") == nil)
    }

    @Test func thisProcessIsRunningAndAStartTimeThatDiffersIsNot() throws {
        let current = try #require(ProcessIdentity.current())
        #expect(BufferOwnershipStore.isRunning(current))
        var reused = current
        reused.startTime += 1
        #expect(!BufferOwnershipStore.isRunning(reused))
        #expect(ProcessIdentity.startTime(parsingStat: "77 (a b) c) S " + (4...21).map(String.init).joined(separator: " ") + " 555") == 555)
    }

    @Test func theDirectoryFollowsTheControlSocketsRules() {
        #expect(BufferOwnershipStore.standard(environment: ["RUNTIME_DIRECTORY": "/run/headsup:/x"]).directory == "/run/headsup")
        #expect(BufferOwnershipStore.standard(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]).directory == "/run/user/1000/headsup")
        #expect(BufferOwnershipStore.standard(environment: [:]).directory == "/run/headsup")
    }
}
