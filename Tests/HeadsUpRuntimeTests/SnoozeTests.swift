import Foundation
import HeadsUpData
import HeadsUpNotify
import HeadsUpPipeline
import HeadsUpRuntime
import HeadsUpSystem
import HeadsUpTestSupport
import Logging
import Synchronization
import Testing

/// A wall clock a test can step, as NTP does on a board without a real-time clock.
final class SteppingWallClock: WallClock, Sendable {
    let offset = Mutex<Double>(0)
    let time: ManualTime
    init(time: ManualTime) { self.time = time }
    func secondsSince1970() -> Double { time.seconds.withLock { $0 } + offset.withLock { $0 } }
    func step(_ seconds: Double) { offset.withLock { $0 += seconds } }
}

@Suite("Snooze: lengths, clocks, the session and restarts")
struct SnoozeTests {
    @Test func lengthsAreParsedAndBounded() throws {
        #expect(try Snooze.parseLength("30m") == 1800)
        #expect(try Snooze.parseLength("1h30m") == 5400)
        #expect(try Snooze.parseLength("90s") == 90)
        #expect(try Snooze.parseLength("2d") == 172_800)
        for bad in ["", "30", "m", "30x", "-5m", "1.5h", "0m"] {
            #expect(throws: SnoozeError.self, "\(bad)") { try Snooze.parseLength(bad) }
        }
        #expect(throws: SnoozeError.tooLong("8d")) { try Snooze.parseLength("8d") }
    }

    @Test func aSteppingWallClockNeitherStretchesNorCutsASnooze() {
        var clock = SnoozeClock()
        clock.start(length: 1800, wallNow: 1_000_000, monotonicNow: 10)
        // The wall clock jumps a day ahead; the running snooze keeps its monotonic end.
        #expect(clock.isActive(monotonicNow: 1000))
        let endedEarly = clock.expire(monotonicNow: 1809)
        #expect(!endedEarly)
        let ended = clock.expire(monotonicNow: 1810)
        #expect(ended)
        #expect(clock.snooze == nil)
        // After a restart: what is left by the wall clock, never more than the length.
        var restored = SnoozeClock()
        let saved = Snooze(since: 1_000_000, until: 1_001_800)
        restored.restore(saved, wallNow: 1_000_600, monotonicNow: 5)
        #expect(restored.remaining(monotonicNow: 5) == 1200)
        restored.restore(saved, wallNow: 900_000, monotonicNow: 5)  // the clock went back a day
        #expect(restored.remaining(monotonicNow: 5) == 1800)
        restored.restore(saved, wallNow: 1_002_000, monotonicNow: 5)  // over while HeadsUp was down
        #expect(restored.snooze == nil && !restored.isActive(monotonicNow: 5))
    }

    func session(
        time: ManualTime, wallClock: SteppingWallClock, store: SnoozeStore, sink: RecordingSink, control: ControlSocket? = nil,
        logger: Logger = Logger(label: "test")
    ) throws -> LiveSession {
        var layers = LayeredSettings()
        try layers.set("beacons.regions", .list(["crossing=B9407F30-F5F8-466E-AFF9-25556B57FE6D"]))
        try layers.set("beacons.dwell", .number(0))
        let configuration = try layers.resolved().pipelineConfiguration()
        let parts = LiveSession.Parts(
            motion: ScriptedMotion(time: time), beacons: ScriptedBeacons(time: time, from: 6),
            dispatcher: NotificationDispatcher(sinks: [sink], logger: Logger(label: "test")), service: nil, clock: time.monotonic,
            wallClock: wallClock, control: control, snoozeStore: store)
        return LiveSession(scorer: ConstantScorer(value: 0.95), configuration: configuration, parts: parts, logger: logger)
    }

    func outcomes(_ events: [PipelineEvent]) -> [WarningDecision.Outcome] {
        events.compactMap { if case .decision(let d) = $0 { d.outcome } else { nil } }
    }

    @Test func aSnoozeSilencesWarningsSurvivesARestartAndEnds() throws {
        let directory = try TemporaryDirectory()
        let store = SnoozeStore(path: directory.path("state/headsup/snooze.json"))
        let time = ManualTime()
        let wall = SteppingWallClock(time: time)
        let sink = RecordingSink()
        let first = try session(time: time, wallClock: wall, store: store, sink: sink)
        try first.start()
        let answer = first.answer(.snooze(seconds: 60))
        #expect(answer.error == nil)
        #expect(answer.status?.snoozedUntil == wall.secondsSince1970() + 60)
        var events: [PipelineEvent] = []
        for _ in 0..<90 { events += first.step() }
        first.stop()
        #expect(outcomes(events).contains(.snoozed), "\(outcomes(events))")
        #expect(!outcomes(events).contains(.warned))
        #expect(sink.delivered.withLock { $0.isEmpty })
        #expect(FileManager.default.fileExists(atPath: store.path))

        // A restart 9 s in: still snoozed, for the rest of the minute.
        wall.step(3600)  // and NTP moved the wall clock an hour ahead meanwhile: the record says over
        let second = try session(time: time, wallClock: wall, store: store, sink: sink)
        try second.start()
        #expect(second.status.snoozedUntil == nil, "ended by the wall clock while HeadsUp was down")
        wall.step(-3600)
        let third = try session(time: time, wallClock: wall, store: store, sink: sink)
        try third.start()
        let left = try #require(third.snoozeClock.remaining(monotonicNow: third.now))
        #expect(abs(left - 51) < 0.5, "\(left)")
        var later: [PipelineEvent] = []
        for _ in 0..<600 { later += third.step() }  // 60 s more: the snooze ends and the next check warns
        third.stop()
        #expect(outcomes(later).contains(.snoozed))
        #expect(outcomes(later).contains(.warned), "\(outcomes(later))")
        #expect(sink.delivered.withLock { $0.count } == 1)
        #expect(!FileManager.default.fileExists(atPath: store.path), "an ended snooze leaves no record")
    }

    @Test func aDamagedSnoozeFileIsReportedAndIgnored() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("snooze.json", "{not json")
        #expect(throws: SnoozeStoreError.self) { try SnoozeStore(path: path).load() }
        let time = ManualTime()
        let live = try session(time: time, wallClock: SteppingWallClock(time: time), store: SnoozeStore(path: path), sink: RecordingSink())
        try live.start()
        #expect(live.status.snoozedUntil == nil)
        live.stop()
    }

    @Test(arguments: [
        #"{"since": 1000, "until": 1e300}"#, #"{"since": -1e300, "until": 1000}"#, #"{"since": 1000, "until": 999}"#,
        #"{"since": 1000, "until": 1000000}"#, #"{"since": 1e300, "until": 1e300}"#,
    ])
    func aSnoozeRecordOutOfRangeIsRefusedAndTheSessionStartsUnsnoozed(record: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("snooze.json", record)
        #expect(throws: SnoozeStoreError.self) { try SnoozeStore(path: path).load() }
        let time = ManualTime()
        let live = try session(time: time, wallClock: SteppingWallClock(time: time), store: SnoozeStore(path: path), sink: RecordingSink())
        try live.start()
        #expect(live.status.snoozedUntil == nil)
        live.stop()
    }

    @Test func aRestoredSnoozeLastsAtMostAWeek() {
        var clock = SnoozeClock()
        // A record no HeadsUp writes (the store refuses it), handed to the clock directly.
        clock.restore(Snooze(since: 1000, until: 1000 + 30 * 86400), wallNow: 2000, monotonicNow: 5)
        #expect(clock.remaining(monotonicNow: 5) == Snooze.longest)
        clock.restore(Snooze(since: 1000, until: .infinity), wallNow: 2000, monotonicNow: 5)
        #expect(clock.remaining(monotonicNow: 5) == nil)
        clock.restore(Snooze(since: 1000, until: 1000 + 600), wallNow: 1300, monotonicNow: 5)
        #expect(clock.remaining(monotonicNow: 5) == 300)
    }

    @Test func aTimeBeyondTheCalendarIsShownNotTrappedOn() {
        #expect(localTime(1e300) == "1e+300")
        #expect(localTime(.nan) == "nan")
        #expect(!localTime(1_764_000_000).isEmpty)
    }

    @Test func theControlSocketAnswersStatusSnoozeAndResume() throws {
        let directory = try TemporaryDirectory()
        let time = ManualTime()
        let wall = SteppingWallClock(time: time)
        let path = directory.path("control")
        let live = try session(
            time: time, wallClock: wall, store: SnoozeStore(path: directory.path("snooze.json")), sink: RecordingSink(),
            control: try ControlSocket(path: path))
        try live.start()
        #expect(throws: ControlError.self, "a second daemon may not take the socket") { try ControlSocket(path: path) }
        // The client blocks until the loop serves it: ask from another thread, step here.
        func ask(_ request: ControlRequest) throws -> ControlResponse {
            let answer = Mutex<Result<ControlResponse, ControlError>?>(nil)
            let thread = Thread {
                let result = Result { () throws(ControlError) in try ControlClient.send(request, to: path) }
                answer.withLock { $0 = result }
            }
            thread.start()
            while answer.withLock({ $0 == nil }) {
                _ = live.step()
                usleep(1000)
            }
            return try answer.withLock { $0! }.get()
        }
        #expect(try ask(.status).status?.snoozedUntil == nil)
        let until = try #require(try ask(.snooze(seconds: 1800)).status?.snoozedUntil)
        #expect((1795...1800).contains(until - wall.secondsSince1970()), "the steps in between moved the clock a little")
        #expect(try ask(.snooze(seconds: 0)).error != nil)
        #expect(try ask(.resume).status?.snoozedUntil == nil)
        live.stop()
        #expect(throws: ControlError.self) { try ControlClient.send(.status, to: directory.path("nobody")) }
    }

    /// A client that sends its request a byte every 0.3 s: the live loop's
    /// steps never wait for it (the socket is served on its own thread), its
    /// deadline is not renewed per byte (it is dropped after a second), a
    /// prompt client is answered meanwhile, and each snooze and resume is
    /// logged with the peer's uid.
    @Test(.timeLimit(.minutes(1)))
    func aDrippingClientNeitherStallsTheLoopNorOutstaysItsDeadline() throws {
        let directory = try TemporaryDirectory()
        let time = ManualTime()
        let path = directory.path("control")
        let log = ControlLog()
        let control = try ControlSocket(path: path)
        let live = try session(
            time: time, wallClock: SteppingWallClock(time: time), store: SnoozeStore(path: directory.path("snooze.json")), sink: RecordingSink(),
            control: control, logger: Logger(label: "test") { _ in ControlLog.Handler(sink: log) })
        try live.start()
        defer { live.stop() }

        let dripper = try connectedSocket(path)
        let dripped = Mutex<(sent: Int, refused: Bool)>((0, false))
        let request = Array("{\"status\":{}}\n".utf8)
        let drip = Thread {
            for byte in request {
                var one = byte
                if send(dripper, &one, 1, Int32(MSG_NOSIGNAL)) != 1 {
                    dripped.withLock { $0.refused = true }
                    return
                }
                dripped.withLock { $0.sent += 1 }
                usleep(300_000)
            }
        }
        drip.start()
        let answer = Mutex<Result<ControlResponse, ControlError>?>(nil)
        let prompt = Thread {
            usleep(200_000)
            let result = Result { () throws(ControlError) in try ControlClient.send(.snooze(seconds: 600), to: path) }
            answer.withLock { $0 = result }
        }
        prompt.start()
        let clock = SystemMonotonicClock()
        let began = clock.now()
        var longestStep = 0.0
        while clock.now() - began < 2.5 {
            let before = clock.now()
            _ = live.step()
            longestStep = max(longestStep, clock.now() - before)
            usleep(5000)
        }
        #expect(longestStep < 0.5, "a step took \(longestStep) s")
        let response = try #require(try answer.withLock { $0 }?.get())
        #expect(response.status?.snoozedUntil != nil)
        #expect(control.droppedClients == 1)
        // Dropped at its deadline: the connection is closed long before its last byte.
        var byte: UInt8 = 0
        #expect(recv(dripper, &byte, 1, 0) == 0, "the daemon closed the connection without an answer")
        #expect(dripped.withLock { $0.sent } < request.count)
        close(dripper)
        #expect(live.answer(.resume).status?.snoozedUntil == nil)
        let lines = log.lines
        #expect(lines.contains { $0.contains("warnings snoozed until") && $0.contains("asked by uid \(getuid()), pid \(getpid())") }, "\(lines)")
        #expect(lines.contains { $0.contains("snooze ended by request") && $0.contains("asked by this process") }, "\(lines)")
    }

    func connectedSocket(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            let bytes = Array(path.utf8)
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(connected == 0)
        return descriptor
    }
}

/// Log lines, for what the session says about requests.
final class ControlLog: Sendable {
    private let recorded = Mutex<[String]>([])
    var lines: [String] { recorded.withLock { $0 } }
    func append(_ line: String) { recorded.withLock { $0.append(line) } }

    struct Handler: LogHandler {
        let sink: ControlLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { sink.append("\(event.level): \(event.message)") }
    }
}
